"""pagesim.report."""
