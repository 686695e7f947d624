"""Corrections: the attorney's edits to model drafts, kept as training data he can trust.

A model that writes like him starts from his own edits. Each accepted draft
becomes a pair (what the model was given, its draft, his final text), refused when its inputs held
anything that was not a primary source, and exported in the forms the trainers read.
"""
