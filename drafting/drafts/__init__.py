"""The attorney's working copies of drafts: his edited text of each run, its cursor, its versions.

Tables ``workstation_drafts``, ``workstation_draft_versions`` and ``workstation_state``; their only
SQL is in :mod:`drafting.drafts.store`.
"""
