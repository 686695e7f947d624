"""Word documents from the Markdown a draft is written in: the clean text, and a redline of tracked changes.

``markdown`` reads the Markdown with markdown-it-py into a small document model (``model``); ``diff``
lines up two such documents (the model's draft and the attorney's text) block by block and word by
word; ``ooxml`` writes either as WordprocessingML, the clean one being a redline in which nothing
changed; ``parts`` holds the package work python-docx does not do (footnotes, numbered-list restarts,
a template's styles); ``document`` puts them together.
"""

from drafting.word.document import TemplateError, clean_docx, redline_docx

__all__ = ["TemplateError", "clean_docx", "redline_docx"]
