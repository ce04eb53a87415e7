"""pagesim.workloads."""
