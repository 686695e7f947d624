"""The wide corpus's conversions keep the source's words and page markers (tests/verify_wide/convert.py)."""

from __future__ import annotations

import json

from drafting.verify.authorities import parse_citation
from tests.verify_wide.convert import CONVERSIONS
from tests.verify_wide.lawbox_draw import case_name_from_slug

# The head of Kinneary v. City of New York, 601 F.3d 151, as CourtListener's html_lawbox field holds it.
LAWBOX = (
    "<div>\n<center><b>601 F.3d 151 (2010)</b></center>\n<center><h1>Joseph KINNEARY, "
    "Plaintiff-Appellee-Cross-Appellant,<br>\nv.<br>\nCITY OF NEW YORK, Defendants-Appellants."
    '</h1></center>\n<p><span class="star-pagination">*152</span> Stephen Bergstein, Bergstein &amp; '
    "Ullrich, Chester, N.Y., for Plaintiff-Appellee-Cross-Appellant.</p>"
)


def test_json_html_reads_the_named_field_as_a_page_and_keeps_its_star_pages() -> None:
    record = json.dumps({"html_lawbox": LAWBOX, "plain_text": "not this"}).encode()
    text = CONVERSIONS["json_html"](record, "html_lawbox").decode()
    assert text.splitlines()[0] == "601 F.3d 151 (2010)"
    assert "*152 Stephen Bergstein, Bergstein & Ullrich, Chester, N.Y." in text
    assert "not this" not in text and "<" not in text


def test_cap_json_reads_the_text_format_as_head_matter_then_each_opinion() -> None:
    # People v. Bradley, 1 Cal. 3d 80, as the CAP API's text format gives it (cut short).
    case = {
        "citations": [{"type": "official", "cite": "1 Cal. 3d 80"}],
        "name_abbreviation": "People v. Bradley",
        "casebody": {
            "data": {
                "head_matter": "[Crim. No. 12806.\nTHE PEOPLE, Plaintiff and Respondent, v. DWIGHT WILBUR "
                "BRADLEY, Defendant and Appellant.\nOct. 31, 1969.]",
                "parties": ["THE PEOPLE v. BRADLEY"],
                "opinions": [
                    {
                        "type": "majority",
                        "author": "BURKE, J.",
                        "text": "Opinion\nBURKE, J.\nA court, "
                        "sitting without a jury, found defendant guilty.",
                    },
                    {
                        "type": "dissent",
                        "author": "TOBRINER, J.",
                        "text": "TOBRINER, J.,\nConcurring and Dissenting.",
                    },
                ],
            }
        },
    }
    lines = CONVERSIONS["cap_json"](json.dumps(case).encode(), "").decode().splitlines()
    assert lines[:3] == ["1 Cal. 3d 80", "People v. Bradley", "[Crim. No. 12806."]
    assert lines.index("Oct. 31, 1969.]") < lines.index("BURKE, J.") < lines.index("TOBRINER, J.,")
    assert "A court, sitting without a jury, found defendant guilty." in lines


def test_cap_json_cites_the_case_with_the_year_of_its_decision_date() -> None:
    # A made-up record shaped as CAP gives one: an old report's casebody prints no date, and the
    # record's decision_date is the only one the file holds.
    case = {
        "decision_date": "1845-12-01",
        "citations": [
            {"type": "official", "cite": "3 Ill. 100"},
            {"type": "parallel", "cite": "3 Scam. 100"},
        ],
        "name_abbreviation": "Doe v. Roe",
        "casebody": {
            "data": "<casebody><opinion><p>Opinion of the Court by <page-number>*101</page-number>"
            "Justice Roe.</p></opinion></casebody>"
        },
    }
    lines = CONVERSIONS["cap_json"](json.dumps(case).encode(), "").decode().splitlines()
    assert lines[:3] == ["3 Ill. 100 (1845)", "3 Scam. 100 (1845)", "Doe v. Roe"]
    own = parse_citation(lines[0])
    assert own is not None and own.year == "1845"
    undated = CONVERSIONS["cap_json"](json.dumps({**case, "decision_date": None}).encode(), "").decode()
    assert undated.splitlines()[0] == "3 Ill. 100"


def test_the_third_draw_names_each_case_from_its_slug_as_names_are_written() -> None:
    assert (
        case_name_from_slug("odonnell-v-boggs", "Richard O'DONNELL, Plaintiff, v. BOGGS")
        == "O'Donnell v. Boggs"
    )
    assert case_name_from_slug("in-re-handy", "In re HANDY") == "In re Handy"
    assert case_name_from_slug("us-ex-rel-loughren-v-unum-group", "") == "U.S. ex rel. Loughren v. Unum Group"
    assert (
        case_name_from_slug("r-b-transp-llc-v-us-dept-of-labor", "")
        == "R B Transp. LLC v. U.S. Dep't of Labor"
    )
