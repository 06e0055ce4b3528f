"""The Train page: configuration and URL (config), session state and training (state), drawing (render, predict), panels (panels)."""
