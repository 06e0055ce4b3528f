"""The Vocabulary size page: model cost arithmetic, curves, charts, sources, sections."""
