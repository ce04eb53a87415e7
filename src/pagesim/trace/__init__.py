"""pagesim.trace."""
