"""The Algorithms page: every registered training algorithm side by side (logic, widgets, one view per algorithm, the course checks)."""
