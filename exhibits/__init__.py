"""The exhibits room: Bates productions, binders, and redaction that really removes text.

Pure CPU work on PDFs (PyMuPDF, Tesseract). Every output is written to a
temporary file and renamed only when complete, never over a source file, and
lives in a folder marked as chambers output so evidence ingest never takes it
for a primary source. It imports ``workspace`` and ``evidence`` only; the TUI
and CLI drive it through plain progress callbacks.
"""
