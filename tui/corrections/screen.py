"""The corrections browser (F5): his edits as training pairs, one shown as a redline.

The list filters by model, task type and edit ratio; the right pane shows the highlighted pair as a
redline (struck red is what he removed, underlined green what he wrote) from the same redline code
the exports and statistics use, or the statistics per model (s), drafts written with a LoRA adapter
in rows of their own, above each trained adapter's eval scores. A pair can be excluded from exports
(x) or deleted after a confirmation (d); e opens the export dialog with the list's filters, and p the
dialog that confirms the highlighted pair's matter's parties for the export scrub; t trains a LoRA
adapter from the accepted pairs, with its progress, in a dialog of its own. Database
work runs in thread workers; widgets only show what they are handed.
"""

from __future__ import annotations

from pathlib import Path

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import DataTable, Footer, Header, Input, Select, Static

from corrections.model import StoredPair
from corrections.redline import Redline
from corrections.store import PairFilters
from drafting.redline_marks import STYLES, marked
from tui.corrections.dialogs import ConfirmScreen, ExportScreen
from tui.widgets.chambers_screen import ChambersScreen
from tui.widgets.key_text import KeyText
from workspace.config import Config

COLUMNS = ("#", "Edit", "Model", "Task", "Accepted")  # what he compares first comes first


class CorrectionsScreen(ChambersScreen):
    """Browse, exclude, delete and export correction pairs."""

    SUB_TITLE = "Corrections"

    BINDINGS = [
        Binding("escape", "close", "Back", id="corrections.close", tooltip="Back to the workstation"),
        Binding(
            "x",
            "exclude",
            "Exclude",
            id="corrections.exclude",
            tooltip="Leave the highlighted pair out of exports (x again includes it)",
        ),
        Binding(
            "d",
            "delete",
            "Delete",
            id="corrections.delete",
            tooltip="Delete the highlighted pair for good (asks first)",
        ),
        Binding(
            "e",
            "export",
            "Export",
            id="corrections.export",
            tooltip="Export SFT, DPO, KTO or all fields as JSONL, with the list's filters",
        ),
        Binding(
            "s",
            "stats",
            "Stats",
            id="corrections.stats",
            tooltip="Statistics per model and task: edit ratios, share unedited, trend (s again: redline)",
        ),
        Binding(
            "p",
            "parties",
            "Parties",
            id="corrections.parties",
            tooltip="Confirm the highlighted pair's matter's parties for the export scrub",
        ),
        Binding(
            "t",
            "train",
            "Train",
            id="corrections.train",
            tooltip="Train a LoRA adapter for a role from the accepted pairs, with progress (Esc stops)",
        ),
    ]

    def __init__(self, database_file: Path) -> None:
        super().__init__()
        self.database_file = database_file
        self.pairs: list[StoredPair] = []
        self.showing_stats = False
        self.width_for_stats: int | None = None  # the stats table's width, set when s shows it
        self.config_for_stats: Config | None = None  # read with the width, for the models' one names
        self._requested: PairFilters | None = None  # the filters of the last load asked for
        self.wanted_pair: int | None = None  # the pair the cursor goes to once listed (a search found it)

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal(id="corrections-filters"):
            yield Select[str]([], prompt="Any model", id="corrections-model")
            yield Select[str]([], prompt="Any task", id="corrections-task")
            yield Input(placeholder="Min edit %", id="corrections-min", type="number", max_length=5)
        with Horizontal(id="corrections-body"):
            yield DataTable(id="corrections-list", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="corrections-redline-scroll"):
                yield Static("", id="corrections-redline")
        yield KeyText("", id="corrections-status", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#corrections-list", DataTable)
        table.border_title = "Pairs (x exclude, d delete)"
        table.add_columns(*COLUMNS)
        table.focus()
        self.query_one("#corrections-redline-scroll").border_title = "Redline"
        self.load_choices()
        self.reload()

    # --- loading --------------------------------------------------------------------

    def filters(self) -> PairFilters:
        model = self.query_one("#corrections-model", Select).value
        task = self.query_one("#corrections-task", Select).value
        raw = self.query_one("#corrections-min", Input).value.strip()
        return PairFilters(
            model=model if isinstance(model, str) else None,
            task=task if isinstance(task, str) else None,
            min_edit_ratio=float(raw) / 100 if raw else None,
            include_excluded=True,
        )

    @work(thread=True, exclusive=True, group="corrections-choices", exit_on_error=False)
    def load_choices(self) -> None:
        from corrections.store import models_and_tasks

        models, tasks = models_and_tasks(self.database_file)
        self.app.call_from_thread(self._show_choices, models, tasks)

    def _show_choices(self, models: list[str], tasks: list[str]) -> None:
        self.query_one("#corrections-model", Select).set_options((m, m) for m in models)
        self.query_one("#corrections-task", Select).set_options((t, t) for t in tasks)

    @on(Select.Changed)
    @on(Input.Submitted, "#corrections-min")
    def filters_changed(self) -> None:
        # Filling the drop-downs on mount reports a change too; the same filters are not loaded twice.
        if self.filters() != self._requested:
            self.reload()

    def reload(self) -> None:
        self._requested = self.filters()
        self.load_pairs(self._requested)

    @work(thread=True, exclusive=True, group="corrections-load", exit_on_error=False)
    def load_pairs(self, filters: PairFilters) -> None:
        from corrections.store import list_pairs

        pairs = list_pairs(self.database_file, filters)
        self.app.call_from_thread(self._show_pairs, pairs)

    def _show_pairs(self, pairs: list[StoredPair]) -> None:
        self.pairs = pairs
        table = self.query_one("#corrections-list", DataTable)
        row = table.cursor_row
        cells = [
            (
                str(p.id),
                "excl." if p.excluded else f"{p.edit_ratio:.0%}",
                p.model_label,
                p.task_type,
                p.accepted_at[:10],
            )
            for p in pairs
        ]
        # Each column as wide as its widest cell, given here: a table that sizes its columns itself does so
        # only once idle, and rows it draws before then keep every column as narrow as its label.
        table.clear(columns=True)
        for index, label in enumerate(COLUMNS):
            table.add_column(label, width=max([cell_len(label), *(cell_len(c[index]) for c in cells)]))
        for p, row_cells in zip(pairs, cells, strict=True):
            table.add_row(*row_cells, key=str(p.id))
        if pairs:
            table.move_cursor(row=min(max(row, 0), len(pairs) - 1))
            self.show_selected()
        else:
            self.query_one("#corrections-redline", Static).update(
                "No correction pairs here yet. Accept an edited draft and it appears in this list."
            )
        excluded = sum(p.excluded for p in pairs)
        self.set_status(
            f"{len(pairs)} pair{'' if len(pairs) == 1 else 's'}, {excluded} excluded from exports. "
            "e exports, s shows statistics."
        )
        if pairs and self._move_to_wanted():
            self.show_selected()

    def select_pair(self, pair_id: int) -> None:
        """Put the cursor on pair ``pair_id`` (the search from every screen found it), now or once listed."""
        self.wanted_pair = pair_id
        if self.pairs and self._move_to_wanted():
            self.show_selected()

    def _move_to_wanted(self) -> bool:
        wanted, self.wanted_pair = self.wanted_pair, None
        row = next((i for i, p in enumerate(self.pairs) if p.id == wanted), None)
        if wanted is not None and row is None:
            self.set_status(f"Pair {wanted} is not in the list: its filters leave it out.")
        if row is not None:
            self.query_one("#corrections-list", DataTable).move_cursor(row=row)
        return row is not None

    def selected(self) -> StoredPair | None:
        if not self.pairs:
            return None
        return self.pairs[
            min(max(self.query_one("#corrections-list", DataTable).cursor_row, 0), len(self.pairs) - 1)
        ]

    @on(DataTable.RowHighlighted, "#corrections-list")
    def show_selected(self) -> None:
        if (pair := self.selected()) is not None and not self.showing_stats:
            self.load_redline(pair)

    @work(thread=True, exclusive=True, group="corrections-redline", exit_on_error=False)
    def load_redline(self, pair: StoredPair) -> None:
        from corrections.redline import redline

        self.app.call_from_thread(self._show_redline, pair, redline(pair.draft, pair.final))

    def _show_redline(self, pair: StoredPair, line: Redline) -> None:
        text = Text()
        for segment in line.segments:
            # Marked as F7 marks them ([-gone-]{+new+}): struck text and the word after it would
            # otherwise read as one word wherever a deletion ends where an insertion starts.
            text.append(marked(segment.kind, segment.text), style=STYLES.get(segment.kind, ""))
        view = self.query_one("#corrections-redline", Static)
        view.remove_class("stats")  # the redline wraps to the pane
        self.query_one("#corrections-list").display = True
        view.update(text)
        self.query_one("#corrections-redline-scroll").border_title = (
            f"Pair {pair.id}: +{line.words_added} -{line.words_removed} words, edit {line.edit_ratio:.0%}"
            + (" (excluded)" if pair.excluded else "")
            + (f" (imported from {pair.origin})" if pair.imported else "")
        )

    def _app_config(self) -> Config | None:
        config = getattr(self.app, "config", None)  # the app's config, read without importing the app
        return config if isinstance(config, Config) else None

    # --- actions --------------------------------------------------------------------

    def action_stats(self) -> None:
        self.showing_stats = not self.showing_stats
        if self.showing_stats:
            self.width_for_stats = self.app.size.width - 4  # read here: the worker runs in a thread
            self.config_for_stats = self._app_config()
            self.load_stats()
        else:
            self.query_one("#corrections-list").display = True
            self.query_one("#corrections-list").focus()
            self.show_selected()

    @work(thread=True, exclusive=True, group="corrections-redline", exit_on_error=False)
    def load_stats(self) -> None:
        from corrections.adapters import adapters_table, list_adapters
        from corrections.stats import compute_stats, stats_table
        from tui.corrections.model_names import stored_model_names

        # The table gets the screen's whole width (the list is hidden): its pane's borders and padding take 4.
        names = stored_model_names(self.config_for_stats, self.database_file)
        lines = stats_table(compute_stats(self.database_file, names), width=self.width_for_stats)
        lines += ["", "Adapters (held-out pairs, all tasks; lower edit and higher chrF are better)"]
        lines += adapters_table(list_adapters(self.database_file), width=self.width_for_stats)
        self.app.call_from_thread(self._show_stats, lines)

    def _show_stats(self, lines: list[str]) -> None:
        view = self.query_one("#corrections-redline", Static)
        view.add_class("stats")  # a table: one line per row, scrolled sideways where the pane is narrow
        self.query_one("#corrections-list").display = False  # the table gets the screen's width: no "dr"
        self.query_one("#corrections-redline-scroll").focus()  # arrows scroll it; s still toggles back
        view.update(Text("\n".join(lines), no_wrap=True))
        self.query_one(
            "#corrections-redline-scroll"
        ).border_title = "Statistics per model (s: back to the redline)"

    def action_exclude(self) -> None:
        if (pair := self.selected()) is not None:
            self.change(pair.id, "exclude", not pair.excluded)

    def action_delete(self) -> None:
        if (pair := self.selected()) is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.change(pair.id, "delete", True)

        self.app.push_screen(
            ConfirmScreen(
                f"Delete pair {pair.id} ({pair.task_type}, {pair.model}) for good? This cannot be undone; "
                "x (exclude) keeps it out of exports instead."
            ),
            answered,
        )

    @work(thread=True, exclusive=True, group="corrections-change", exit_on_error=False)
    def change(self, pair_id: int, what: str, value: bool) -> None:
        from corrections.store import delete_pair, set_excluded

        if what == "delete":
            delete_pair(self.database_file, pair_id)
        else:
            set_excluded(self.database_file, pair_id, value)
        self.app.call_from_thread(self.reload)

    def action_export(self) -> None:
        self.app.push_screen(
            ExportScreen(self.database_file, self.filters_for_export(), self.database_file.parent / "exports")
        )

    def action_parties(self) -> None:
        from tui.corrections.parties_dialog import PartiesScreen

        pair = self.selected()
        if pair is None or not pair.matter:
            self.set_status("Highlight a pair drafted for a matter: p confirms that matter's parties.")
            return

        def recorded(count: int | None) -> None:
            if count:
                self.set_status(f"{count} names recorded for {pair.matter}: --scrub replaces them.")

        self.app.push_screen(PartiesScreen(self.database_file, pair.matter), recorded)

    def action_train(self) -> None:
        from tui.corrections.train_dialog import TrainScreen

        config = self._app_config()
        if config is None:
            return

        def trained(name: str | None) -> None:
            if name:
                self.set_status(f"Adapter '{name}' trained; s shows it once `chambers eval` has scored it.")

        self.app.push_screen(TrainScreen(config, self.database_file), trained)

    def filters_for_export(self) -> PairFilters:
        f = self.filters()
        return PairFilters(task=f.task, model=f.model, min_edit_ratio=f.min_edit_ratio)

    # --- plumbing -------------------------------------------------------------------

    def set_status(self, text: str) -> None:
        self.query_one("#corrections-status", Static).update(text)

    def action_close(self) -> None:
        self.dismiss()
