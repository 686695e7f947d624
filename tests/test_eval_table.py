"""The eval's table fits an 80-column terminal, so each row reads on one line at 80x24."""

from __future__ import annotations

from corrections.train_eval import format_table


def test_the_eval_table_is_no_wider_than_80_columns() -> None:
    row = {
        "task": "demand_letter",
        "pairs": 3,
        "base_edit_ratio": 0.953,
        "adapter_edit_ratio": 0.901,
        "base_chrf": 12.3,
        "adapter_chrf": 14.1,
        "base_blocks": 10,
        "adapter_blocks": 12,
    }
    lines = format_table([row, {**row, "task": "all", "base_blocks": None}])
    assert max(len(line) for line in lines.splitlines()) <= 80, lines
    assert "10→12" in lines
