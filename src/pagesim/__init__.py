"""pagesim: a page-cache laboratory."""

__version__ = "0.1.0"
