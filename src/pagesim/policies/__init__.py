"""pagesim.policies."""
