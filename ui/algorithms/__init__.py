"""The Algorithms page: BPE, WordPiece and Unigram side by side (logic, widgets, one view per algorithm, the course checks)."""
