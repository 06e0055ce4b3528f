"""The Train page: configuration and URL (config), session state and training (state), drawing (drawing, sentence, pair_table, merges, corpus_view, vocab_view, chart, predict), panels (panels)."""
