"""pagesim.sweep."""
