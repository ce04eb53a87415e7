"""pagesim.engine."""
