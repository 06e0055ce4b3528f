"""What every page shares: markdown-safe text, cross-page state, chips, cached tokenizers."""
