"""pagesim.analysis."""
