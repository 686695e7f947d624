"""The evidence room: primary sources, their provenance, search, and context building.

Ingest reads a matter's source folders into page records (PyMuPDF, Tesseract
OCR), quarantines anything chambers itself wrote, indexes the rest in SQLite
FTS5, and builds the exact messages a model is given, each piece with its
provenance. It imports only ``workspace`` and the libraries it reads files
with; a higher room's help (a server's token counter) is passed in as a plain
function.
"""
