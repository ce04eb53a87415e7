"""One module per trace format; each defines ``NAME``, ``DESCRIPTION``, ``EXTENSIONS``,
``read(path, **options) -> Trace`` and ``sniff(head: bytes) -> bool``; see `pagesim.trace.io`."""
