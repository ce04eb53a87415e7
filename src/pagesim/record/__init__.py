"""pagesim.record."""
