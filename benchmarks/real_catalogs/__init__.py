"""The real-catalog dev set: ``dataset`` reads it, ``fetch`` (``python -m benchmarks fetch``) builds it."""
