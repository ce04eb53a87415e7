"""One module per trace format; each defines ``NAME``, ``DESCRIPTION``, ``EXTENSIONS``,
``read(path, **options) -> Trace`` and ``sniff(head: bytes, size: int | None = None) -> bool`` (`size`:
the decompressed content's length when known); see `pagesim.trace.io`."""
