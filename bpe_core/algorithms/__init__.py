"""Training algorithms: one module each."""
