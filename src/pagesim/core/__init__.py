"""pagesim.core."""
