"""The workstation's drafts, headless: the attorney's edited text of a run, its versions, the last run open.

``schema.py`` holds the tables; ``store.py`` the autosave that fills them, their only SQL.
"""
