"""Reports: rich tables and JSON records rendered from results and statistics."""
