"""Rules found on the wide corpus's tune part, each on a short excerpt of the real opinion that showed it.

A Second Circuit slip opinion on pleading paper numbers every line in the margin, its "Docket No." line
too; a First Circuit caption names a cabinet department in full where a brief writes its initials; a
district court's sentence holds a record cite ("Compl. (Doc. 30))", "(Leg. Defs.' Br."), so a quotation
of it runs over what reads as a sentence's end, and its citation comes only after it closes; a copy
that prints no page numbers holds a quotation's words but cannot say on which page they are; a caption cut
after its first party ("TOWN OF MERRIMAC, Plaintiff-Appellant,") still holds a draft's plaintiff to it;
a First Circuit caption prints its parties' names with their accents ("RIVERA-MARTÍNEZ"), which briefs
and reporters' indexes drop, and names a society in full where the case is known by its initials;
a public.resource.org copy wraps a party's name over two printed lines ("... Colonial Drive Realty" /
"Trust, Plaintiff, Appellant,"), and a brief may write a contraction without its apostrophe ("Intl"),
initials without their periods ("FD Rich" for F.D. RICH, "FV" for F/V) and a state as table T10 does ("Me.");
a slip names a party with one letter off ("Gerogarakos", "Commerical"), as briefs misspell names; and an
opinion, as a brief, cites a transcript, the Sentencing Guidelines or a rule of court before an "Id." and
quotes the Federal Rules and the Constitution as it quotes statutes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from drafting.verify.authorities import caption_words
from drafting.verify.case_names import caption_acronyms, written_acronyms
from drafting.verify.checks_cases import word_in_caption
from drafting.verify.checks_sources import quote_parts
from drafting.verify.model import Flag
from drafting.verify.text import normalize_for_match
from tests.support.verify_library import ingest_library, record_and_opinions, verify_text

# United States v. Luna, No. 07-3018-cr (2d Cir. Oct. 16, 2008), its first page as the court's text.
LUNA = """07-3018-cr
USA v. Luna (USA)
1
2                            UNITED STATES COURT OF APPEALS
3                                FOR THE SECOND CIRCUIT
4
7                                       August Term, 2007
8
9   (Argued: June 19, 2008                                            Decided: October 16, 2008)
10
11                                      Docket No. 07-3018-cr
12
15                                   UNITED STATES OF AMERICA ,
16
17                                                                                      Appellant,
18
19                                                v.
20
21                  WARREN HAWKINS, ALSO KNOWN AS PAUL, ALSO KNOWN AS HAWK,
23                                                                            Defendant-Appellee,
25         Alex Luna, Nicky Carrasquilla, also known as Nicky Gomez, Jose R. Adames, also
36                                                                                    Defendants.
"""
# Astralis Condominium Ass'n v. Secretary, HUD, 620 F.3d 62 (1st Cir. 2010), as vendor text.
ASTRALIS = """620 F.3d 62 (2010)
ASTRALIS CONDOMINIUM ASSOCIATION, Petitioner, Cross-Respondent,
v.
SECRETARY, UNITED STATES DEPARTMENT OF HOUSING AND URBAN DEVELOPMENT, on Behalf of Carlos \
García-Guillén and Sonia Vélez-Avilés, Respondent, Cross-Petitioner.
Nos. 09-2497, 09-2589.
United States Court of Appeals, First Circuit.
Decided September 16, 2010.
*64 SELYA, Circuit Judge.
This case illustrates the point. The complainants filed an administrative claim against the \
condominium association that controlled those spaces.
"""
# Democracy N.C. v. N.C. State Bd. of Elections, 590 F. Supp. 3d 850 (M.D.N.C. 2022), as the vendor prints it.
DEMOCRACY = """Court: U.S. District Court — Middle District of North Carolina
590 F.Supp.3d 850
DEMOCRACY NORTH CAROLINA, the League of Women Voters of North Carolina, and Walter Hutchins, Plaintiffs,
v.
The NORTH CAROLINA STATE BOARD OF ELECTIONS, Damon Circosta, in his official capacity as Chair, Defendants.
Date: March 10, 2022
[590 F.Supp.3d 860]
Following the passage of H.B. 1169, Plaintiffs filed a Second Amended Complaint, (Second Am. Compl. \
(Doc. 30)), and an amended motion for a preliminary injunction, (Doc. 31). This court held an evidentiary \
hearing and oral argument from July 20 through July 22, 2020.
[590 F.Supp.3d 868]
Defendants argue Plaintiff Hutchins lacks standing to bring a Section 208 claim. (Leg. Defs.' Br. \
(Doc. 210) at 22-23; State Board Defs.' Br. (Doc. 212) at 19.)
"""
# Town of Merrimac v. Village of Merrimac, 753 N.W.2d 552 (Wis. Ct. App. 2008), Fastcase text: no page marker.
MERRIMAC = """753 N.W.2d 552
2008 WI App 98
TOWN OF MERRIMAC, Plaintiff-Appellant,

The question before us is whether WIS. STAT. § 66.0217(11)(c) bars a town from contesting in court a \
particular type of annexation, namely, a direct annexation by unanimous approval under § 66.0217(2). \
We agree with the circuit court that § 66.0217(11)(c) bars the Town's suit and that the Town may not \
obtain review of the annexation by the common law writ of certiorari. Accordingly, we affirm the circuit court.
"""
# United States v. Rivera-Martínez, 607 F.3d 283 (1st Cir. 2010), and Latin American Music Co. v.
# ASCAP, 629 F.3d 262 (1st Cir. 2010), their heads as vendor text.
RIVERA = """607 F.3d 283 (2010)
UNITED STATES of America, Appellee,
v.
Robin Eddie RIVERA-MARTÍNEZ, Defendant, Appellant.
No. 08-1874.
United States Court of Appeals, First Circuit.
Decided June 9, 2010.
*285 SELYA, Circuit Judge.
The defendant pleaded guilty to a firearms charge and appeals his sentence.
"""
LAMCO = """629 F.3d 262 (2010)
LATIN AMERICAN MUSIC COMPANY, d/b/a Asociación de Compositores y Editores de Música Latinoamericana \
(ACEMLA), Plaintiffs, Appellants,
v.
AMERICAN SOCIETY OF COMPOSERS AUTHORS AND PUBLISHERS, Defendant, Appellee.
No. 08-1498.
United States Court of Appeals, First Circuit.
Decided December 28, 2010.
*263 PER CURIAM.
In this copyright case, plaintiff has filed its second motion for reconsideration.
"""
# United States ex rel. Poteet v. Bahler Medical, Inc., 619 F.3d 104 (1st Cir. 2010), as vendor text.
POTEET = """619 F.3d 104 (2010)
UNITED STATES ex rel. Jacqueline Kay POTEET and John Doe, Plaintiffs, Appellants,
v.
BAHLER MEDICAL, INC., et al., Defendants, Appellees,
No. 09-1728.
United States Court of Appeals, First Circuit.
Decided September 8, 2010.
*106 HOWARD, Circuit Judge.
The False Claims Act (FCA) allows private persons to file qui tam actions on behalf of the United States \
against persons or entities who knowingly submit false claims to the federal government. 31 *107 U.S.C. \
§ 3730. In 2007, Jacqueline Kay Poteet brought a qui tam action.
"""
# Licari v. Ferruzzi, 22 F.3d 344 (1st Cir. 1994), and Diaz v. Seafarers International Union, 13 F.3d 454
# (1st Cir. 1993), their heads as public.resource.org prints them, with no page markers.
LICARI = """22 F.3d 344
28 Fed.R.Serv.3d 1472
Arthur J. LICARI, as he is Trustee of Colonial Drive Realty
Trust, Plaintiff, Appellant,
v.
Joseph FERRUZZI, Patrick J. McNally, Stanley I. Bornstein,
Kenneth J. Savoie, William E. Bingham, Catherine
Lefebvre, Elizabeth Ware and the Town of
Ipswich, Defendants, Appellees.
No. 93-2047.
United States Court of Appeals,
First Circuit.
Decided April 28, 1994.
The plaintiff appeals from the dismissal of his complaint.
"""
SEAFARERS = """13 F.3d 454
Domingo DIAZ, et al., Plaintiffs, Appellants,
v.
SEAFARERS INTERNATIONAL UNION, et al., Defendants, Appellees.
No. 93-1488.
United States Court of Appeals,
First Circuit.
Decided Jan. 7, 1994.
The union members appeal from the dismissal of their suit.
"""
# United States v. 789 Cases of Latex Surgeon Gloves, 13 F.3d 12 (1st Cir. 1993), as public.resource.org
# prints it (here with the star page its reporter gives the sentence).
GLOVES = """13 F.3d 12
UNITED STATES of America, Plaintiff, Appellee,
v.
789 CASES OF LATEX SURGEON GLOVES, Defendant, Appellee.
No. 93-1327.
United States Court of Appeals,
First Circuit.
Decided Dec. 28, 1993.
*14 Under the principle that a post-judgment motion asking the court to change its disposition solely \
because of legal error must be brought under Rule 59(e) within the rule's 10-day period, the motion was late.
"""


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("wide-rules")
    record, opinions = record_and_opinions(root)
    (opinions / "luna.txt").write_text(LUNA)
    (opinions / "astralis.txt").write_text(ASTRALIS)
    (opinions / "democracy.txt").write_text(DEMOCRACY)
    (opinions / "merrimac.txt").write_text(MERRIMAC)
    (opinions / "rivera.txt").write_text(RIVERA)
    (opinions / "lamco.txt").write_text(LAMCO)
    (opinions / "poteet.txt").write_text(POTEET)
    (opinions / "licari.txt").write_text(LICARI)
    (opinions / "seafarers.txt").write_text(SEAFARERS)
    (opinions / "gloves.txt").write_text(GLOVES)
    return ingest_library(root, record, opinions)


def _case_flag(database: Path, tmp_path: Path, text: str) -> Flag:
    """The one case citation's flag of ``text`` verified as a draft."""
    (flag,) = [f for f in verify_text(database, tmp_path, text).flags if f.kind == "case"]
    return flag


def _verdicts(database: Path, tmp_path: Path, text: str) -> list[tuple[str, str]]:
    report = verify_text(database, tmp_path, text)
    return [(f.text, f.severity) for f in report.flags if f.kind == "case"]


def test_a_docket_line_after_a_margin_line_number_is_the_opinion_s_own(
    database: Path, tmp_path: Path
) -> None:
    flags = _verdicts(
        database,
        tmp_path,
        "The order stands. United States v. Luna, No. 07-3018-cr (2d Cir. Oct. 16, 2008).\n\n"
        "It does not. United States v. Luna, No. 07-3019-cr (2d Cir. Oct. 16, 2008).\n",
    )
    assert flags[0] == ("No. 07-3018-cr", "ok"), flags
    assert flags[1][1] != "ok", flags


def test_an_agency_named_by_its_initials_is_the_caption_s_department(database: Path, tmp_path: Path) -> None:
    flags = _verdicts(
        database,
        tmp_path,
        "Parking is a benefit. Astralis Condominium Ass'n v. Secretary, HUD, 620 F.3d 62 (1st Cir. 2010).\n\n"
        "So it is. Astralis Condominium Ass'n v. Secretary, FTC, 620 F.3d 62 (1st Cir. 2010).\n",
    )
    assert flags[0][1] == "ok", flags
    assert flags[1][1] == "block", flags


@pytest.mark.parametrize(
    ("name", "verdict"),
    [
        ("Astralis Condaminium Ass'n v. Secretary, HUD", "verified"),  # a letter changed
        ("Astralis Condominuim Ass'n v. Secretary, HUD", "verified"),  # two letters swapped
        ("Astralus Condaminium Ass'n v. Secretary, HUD", "contradicted"),  # two words misspelled
        ("Ostralis Condominium Ass'n v. Secretary, HUD", "contradicted"),  # another first letter
        ("Astralis Condominium Ass'n v. Secretary, HAD", "contradicted"),  # too short to be a slip
    ],
)
def test_a_party_misspelled_by_one_slip_is_the_right_case_with_a_spelling_warning(
    database: Path, tmp_path: Path, name: str, verdict: str
) -> None:
    flag = _case_flag(database, tmp_path, f"Parking is a benefit. {name}, 620 F.3d 62 (1st Cir. 2010).\n")
    assert flag.verdict == verdict, flag.message
    if verdict == "verified":
        assert flag.severity == "warn" and '"condominium" there' in flag.message, flag.message


def test_a_docket_citation_s_misspelled_party_is_a_spelling_warning(database: Path, tmp_path: Path) -> None:
    flag = _case_flag(
        database,
        tmp_path,
        "The order stands. United States v. Hawkens, No. 07-3018-cr (2d Cir. Oct. 16, 2008).\n",
    )
    assert (flag.severity, flag.verdict) == ("warn", "verified"), flag.message
    assert 'spelled "hawkins"' in flag.message, flag.message


@pytest.mark.parametrize(
    "written", ["Rivera Martinez", "Rivera-Martinez", "Rivera-Martínez", "RIVERA-MARTÍNEZ"]
)
def test_a_name_matches_its_caption_with_or_without_accents_and_hyphens(
    database: Path, tmp_path: Path, written: str
) -> None:
    flags = _verdicts(
        database,
        tmp_path,
        f"The sentence stands. United States v. {written}, 607 F.3d 283 (1st Cir. 2010).\n\n"
        "It does not. United States v. Rivera Marquez, 607 F.3d 283 (1st Cir. 2010).\n",
    )
    assert flags[0] == ("607 F.3d 283", "ok"), flags
    assert flags[1][1] == "block", flags


def test_initials_in_any_case_name_the_society_the_caption_spells_out(database: Path, tmp_path: Path) -> None:
    flags = _verdicts(
        database,
        tmp_path,
        "Fees were awarded. Latin American Music Co. v. ASCAP, 629 F.3d 262 (1st Cir. 2010).\n\n"
        "Again. Latin American Music Co. v. Ascap, 629 F.3d 262 (1st Cir. 2010).\n\n"
        "Not so. Latin American Music Co. v. BMI, 629 F.3d 262 (1st Cir. 2010).\n",
    )
    assert [severity for _, severity in flags] == ["ok", "ok", "block"], flags


@pytest.mark.parametrize(("pin", "severity"), [(106, "ok"), (107, "block")])
def test_a_quotation_is_checked_against_a_citation_whose_name_holds_ex_rel(
    database: Path, tmp_path: Path, pin: int, severity: str
) -> None:
    quote = (
        "\u201cThe False Claims Act (FCA) allows private persons to file qui tam actions on behalf of the "
        "United States against persons or entities who knowingly submit false claims to the federal "
        "government.\u201d"
    )
    report = verify_text(
        database,
        tmp_path,
        f"The court wrote that {quote} United States ex rel. Poteet v. Bahler Medical, Inc., 619 F.3d 104, "
        f"{pin} (1st Cir. 2010).\n",
    )
    (quotation,) = [f for f in report.flags if f.kind == "quotation"]
    assert quotation.severity == severity, quotation.message  # never "no citation given"


def test_a_party_name_wrapped_over_two_printed_lines_is_read_whole(database: Path, tmp_path: Path) -> None:
    flags = _verdicts(
        database,
        tmp_path,
        "The complaint fails. Licari v. Ferruzzi, 22 F.3d 344 (1st Cir. 1994).\n\n"
        "So it does. Licari v. Savoie, 22 F.3d 344 (1st Cir. 1994).\n\n"
        "Not here. Hargrove v. Ferruzzi, 22 F.3d 344 (1st Cir. 1994).\n",
    )
    assert [severity for _, severity in flags] == ["ok", "ok", "block"], flags


@pytest.mark.parametrize(("written", "severity"), [("Intl", "ok"), ("Int'l", "ok"), ("Inst", "block")])
def test_a_contraction_without_its_apostrophe_is_the_caption_s_word(
    database: Path, tmp_path: Path, written: str, severity: str
) -> None:
    flags = _verdicts(
        database,
        tmp_path,
        f"The claim was late. Diaz v. Seafarers {written} Union, 13 F.3d 454 (1st Cir. 1994).\n",
    )
    assert flags == [("13 F.3d 454", severity)], flags


def test_initials_run_over_words_within_one_part_of_the_caption_only() -> None:
    caption = "SECRETARY, UNITED STATES DEPARTMENT OF HOUSING AND URBAN DEVELOPMENT, on Behalf of Carlos"
    assert "hud" in caption_acronyms(caption) and "usdhud" in caption_acronyms(caption)
    assert "shu" not in caption_acronyms(caption)  # "Secretary," ends its part
    assert written_acronyms("Secretary, HUD") == {"hud"}
    assert written_acronyms("Housing Authority") == set()


@pytest.mark.parametrize(
    "quoted",
    [
        "Compl. (Doc. 30)), and an amended motion for a preliminary injunction, (Doc. 31).",
        "Defendants argue Plaintiff Hutchins lacks standing to bring a Section 208 claim. (Leg.",
    ],
)
def test_a_quotation_over_a_record_cite_s_period_is_the_citation_s_after_it(
    database: Path, tmp_path: Path, quoted: str
) -> None:
    pin = 860 if "Doc. 30" in quoted else 868
    cite = "Democracy N.C. v. N.C. State Bd. of Elections, 590 F. Supp. 3d 850"
    report = verify_text(
        database,
        tmp_path,
        f"The court wrote that \u201c{quoted}\u201d {cite}, {pin} (2022).\n\n"
        f"The court wrote that \u201c{quoted}\u201d {cite}, 850 (2022).\n",
    )
    quotes = [(f.severity, f.verdict, f.message) for f in report.flags if f.kind == "quotation"]
    assert [q[1] for q in quotes] == ["verified", "contradicted"], quotes
    assert "not at the cited page 850" in quotes[1][2], quotes


def test_a_quotation_of_a_copy_with_no_page_numbers_is_unverifiable_at_a_later_page(
    database: Path, tmp_path: Path
) -> None:
    quoted = "Accordingly, we affirm the circuit court."
    cite = "Town of Merrimac v. Village of Merrimac, 753 N.W.2d 552"
    report = verify_text(
        database,
        tmp_path,
        f"The court held that \u201c{quoted}\u201d {cite}, 552 (Wis. Ct. App. 2008).\n\n"
        f"The court held that \u201c{quoted}\u201d {cite}, 557 (Wis. Ct. App. 2008).\n",
    )
    quotes = [(f.verdict, f.reason, f.message) for f in report.flags if f.kind == "quotation"]
    assert quotes[0][0] == "verified", quotes  # its first page: every copy holds that one
    assert quotes[1][:2] == ("unverifiable", "no-page-numbers"), quotes
    assert "page 557 cannot be checked" in quotes[1][2], quotes


def test_a_caption_cut_after_its_first_party_holds_the_plaintiff_to_it(
    database: Path, tmp_path: Path
) -> None:
    report = verify_text(
        database,
        tmp_path,
        "Annexation stands. Town of Merrimac v. Village of Merrimac, 753 N.W.2d 552 (Wis. Ct. App. 2008).\n\n"
        "It stands. Hargrove Logistics, Inc. v. Village of Merrimac, 753 N.W.2d 552 (Wis. Ct. App. 2008).\n\n"
        "So it does. Town of Merrimac v. Village of Merrimac, 753 N.W.2d 552 (Wis. Ct. App. 2011).\n",
    )
    cases = [(f.verdict, f.message) for f in report.flags if f.kind == "case"]
    assert cases[0][0] == "unverifiable" and "names only 'TOWN OF MERRIMAC'" in cases[0][1], cases
    assert cases[1][0] == "contradicted" and "Hargrove" in cases[1][1], cases
    assert cases[2][0] == "contradicted" and "decided in 2008" in cases[2][1], cases


@pytest.mark.parametrize(("pin", "verdict"), [(62, "verified"), (63, "unverifiable"), (65, "contradicted")])
def test_words_before_a_late_first_marker_are_on_one_of_the_pages_before_it(
    database: Path, tmp_path: Path, pin: int, verdict: str
) -> None:
    report = verify_text(
        database,
        tmp_path,
        "The petition came in time: \u201cUnited States Court of Appeals, First Circuit. Decided September 16, 2010.\u201d "
        f"Astralis Condominium Ass'n v. Secretary, HUD, 620 F.3d 62, {pin} (1st Cir. 2010).\n",
    )
    quotes = [(f.verdict, f.message) for f in report.flags if f.kind == "quotation"]
    assert quotes[0][0] == verdict, quotes


def test_a_party_s_word_in_the_plural_or_the_singular_is_the_caption_s() -> None:
    # Rector v. Department of Correction, No. 10-1079 (1st Cir.), as a brief may name the department
    caption = frozenset({"eugene", "rector", "department", "of", "correction"})
    assert word_in_caption("corrections", caption)
    assert word_in_caption("departments", caption)
    assert not word_in_caption("corrector", caption)
    assert word_in_caption("rectors", caption) and not word_in_caption("rectory", caption)


def test_initials_without_their_periods_are_the_caption_s_and_v_is_no_initial() -> None:
    # Losacco v. F.D. Rich Construction Co., No. 92-1886, and Bielunas v. F/V Misty Dawn, Inc.,
    # No. 09-2048 (1st Cir.), their captions as the slip texts print them; briefs write "FD", "FV"
    losacco = caption_words("FRANK X. LOSACCO, Plaintiff, Appellant, v. F.D. RICH CONSTRUCTION CO., INC.")
    assert word_in_caption("fd", losacco) and "vfd" not in losacco
    assert not word_in_caption("fg", losacco)
    bielunas = caption_words("WOJCIECH BIELUNAS, Plaintiff, Appellee, v. F/V MISTY DAWN, INC., Defendant.")
    assert word_in_caption("fv", bielunas) and not word_in_caption("fw", bielunas)


def test_a_state_abbreviated_as_the_bluebook_does_is_the_caption_s_state() -> None:
    # United States ex rel. S. Prawer & Co. v. Fleet Bank of Maine, No. 93-1766 (1st Cir.)
    caption = caption_words("UNITED STATES OF AMERICA, EX REL. S. PRAWER AND COMPANY v. FLEET BANK OF MAINE")
    assert word_in_caption("me.", caption)
    assert not word_in_caption("mo.", caption) and not word_in_caption("md.", caption)


# Opinions cited by opinions (First Circuit, CourtListener's copies): a court's own citing sentences,
# as real a draft as there is. Their quotations sit in parentheticals after the case they quote, are
# altered in brackets, and follow straight marks that an earlier stray mark must not turn inside out.
FCA = (
    "The False Claims Act (FCA) allows private persons to file qui tam actions on behalf of the United States"
)
POTEET_CITE = "United States ex rel. Poteet v. Bahler Medical, Inc., 619 F.3d 104"


def _quotation_verdicts(database: Path, tmp_path: Path, text: str) -> list[tuple[str, str]]:
    report = verify_text(database, tmp_path, text)
    return [(f.verdict, f.message) for f in report.flags if f.kind == "quotation"]


def test_a_parenthetical_quotation_is_of_the_case_before_it_not_the_next_one(
    database: Path, tmp_path: Path
) -> None:
    # United States v. Ramos, 629 F.3d 60 (1st Cir. 2010), quoting Florida v. J.L. in a parenthetical
    others = "\u201cWe do not say, for example, that a report of a person carrying a bomb need bear the indicia\u201d"
    ((verdict, message),) = _quotation_verdicts(
        database,
        tmp_path,
        f"See Florida v. J.L., 529 U.S. 266, 273-74 (2000) ({others}); {POTEET_CITE}, 106 (1st Cir. 2010).\n",
    )
    assert verdict == "unverifiable" and "529 U.S. 266" in message, message  # J.L. is not in the library
    ((verdict, message),) = _quotation_verdicts(
        database,
        tmp_path,
        f"See {POTEET_CITE}, 106 (1st Cir. 2010) (\u201c{FCA}\u201d); Licari v. Ferruzzi, 22 F.3d 344.\n",
    )
    assert verdict == "verified", message
    ((verdict, message),) = _quotation_verdicts(
        database, tmp_path, f"See {POTEET_CITE}, 106 (1st Cir. 2010) (\u201c{FCA} and others\u201d).\n"
    )
    assert verdict == "contradicted", message


@pytest.mark.parametrize(
    ("quote", "verdict"),
    [
        (
            "[T]he False Claims Act (FCA) allow[s] private persons to file qui tam actions on behalf of the [government]",
            "verified",
        ),
        (
            "The False Claims Act (FCA) allows private persons to file qui tam actions on behalf of the government",
            "contradicted",
        ),
    ],
)
def test_words_altered_in_brackets_are_a_gap_in_the_quotation(
    database: Path, tmp_path: Path, quote: str, verdict: str
) -> None:
    ((found, message),) = _quotation_verdicts(
        database, tmp_path, f"The court wrote that \u201c{quote}.\u201d {POTEET_CITE}, 106 (1st Cir. 2010).\n"
    )
    assert found == verdict, message


def test_a_stray_straight_mark_does_not_turn_later_quotations_inside_out(
    database: Path, tmp_path: Path
) -> None:
    report = verify_text(
        database,
        tmp_path,
        f'The relator\'s pipe was 12" wide. The court wrote that "{FCA}." {POTEET_CITE}, 106 (1st Cir. 2010).\n',
    )
    quotations = [f for f in report.flags if f.kind == "quotation"]
    assert [(f.text, f.verdict) for f in quotations] == [(f'"{FCA}."', "verified")]


@pytest.mark.parametrize(
    ("pin", "verdict"),
    [
        ("105 n.1", "unverifiable"),
        ("105", "contradicted"),
        ("107 n.1", "contradicted"),
        ("106 n.1", "verified"),
    ],
)
def test_a_footnote_s_quotation_on_a_later_page_of_the_copy_cannot_be_placed(
    database: Path, tmp_path: Path, pin: str, verdict: str
) -> None:
    # United States v. Manor, 633 F.3d 11 (1st Cir. 2011), quoting "613 F.3d 18, 25 n. 2" of a copy
    # that prints its footnotes after its last page
    ((found, message),) = _quotation_verdicts(
        database, tmp_path, f"The court noted that \u201c{FCA}.\u201d {POTEET_CITE}, {pin} (1st Cir. 2010).\n"
    )
    assert found == verdict, message


def test_a_nested_quotation_s_single_marks_at_a_part_s_ends_are_no_words() -> None:
    # Kirwan v. Spencer, 631 F.3d 582 (1st Cir. 2011), quoting Young v. Murphy, 615 F.3d 59, 64-65, whose
    # own quotation the source prints in double marks
    parts = quote_parts(
        "warranted . . . if the court adjudicated it under a standard that `is at least as protective of the "
        "defendant's rights as its federal counterpart.'"
    )
    assert parts == [
        "warranted",
        "if the court adjudicated it under a standard that is at least as protective of the defendant's rights "
        "as its federal counterpart",
    ]


def test_a_quotation_spaced_otherwise_is_not_read_with_the_word_before_it(
    database: Path, tmp_path: Path
) -> None:
    # Acevedo-Villalobos v. Hernandez, 22 F.3d 384 (1st Cir. 1994), quoting the Gloves case's "a post-judgment
    # motion" as "[A] post judgment motion": the source's "a" is no part of the quotation
    quote = (
        "[A] post judgment motion asking the court to change its disposition solely because of legal error "
        "must be brought under Rule 59(e)."
    )
    ((verdict, message),) = _quotation_verdicts(
        database,
        tmp_path,
        f"See United States v. 789 Cases of Latex Surgeon Gloves, 13 F.3d 12, 14 (1st Cir. 1993) (\u201c{quote}\u201d).\n",
    )
    assert verdict == "verified", message


def test_a_nested_quotation_in_single_marks_reads_as_the_source_s_double_ones() -> None:
    # United States v. Nunez, 19 F.3d 719 (1st Cir. 1994), quoting United States v. Olivier-Diaz, 13 F.3d 1, 5
    assert normalize_for_match("cannot be 'clear' or 'obvious' unless") == normalize_for_match(
        "cannot be \u201cclear\u201d or \u201cobvious\u201d unless"
    )
    assert normalize_for_match("the court's ruling") != normalize_for_match("the courts ruling")


def test_a_statute_s_quotation_and_the_id_after_it_are_the_statute_s_not_the_case_s(
    database: Path, tmp_path: Path
) -> None:
    # United States v. Welch, 15 F.3d 1202 (1st Cir. 1993): the FJDA quoted, cited, then "Id."
    report = verify_text(
        database,
        tmp_path,
        f"The Act reaches qui tam suits. {POTEET_CITE}, 106 (1st Cir. 2010). A juvenile is \u201ca person who "
        "has not attained his eighteenth birthday.\u201d 18 U.S.C. \u00a7 5031. Delinquency is \u201cthe "
        "violation of a law of the United States committed by a person.\u201d Id.\n\n"
        f"The Act reaches qui tam suits. {POTEET_CITE}, 106 (1st Cir. 2010) (construing 31 U.S.C. \u00a7 3730). "
        "Id. at 106.\n",
    )
    verdicts = [(f.kind, f.verdict, f.reason) for f in report.flags if f.kind in ("quotation", "id")]
    assert verdicts == [
        ("quotation", "unverifiable", "not-checkable"),  # never "no citation given" against the record
        ("quotation", "unverifiable", "not-checkable"),  # nor the words of the Poteet opinion
        ("id", "unverifiable", "not-checkable"),
        ("id", "verified", ""),  # a statute in the case's parenthetical: the Id. is still the case's
    ], [(f.kind, f.verdict, f.message) for f in report.flags]


def test_a_statute_s_quotation_is_not_verified_by_an_opinion_that_never_prints_its_section(
    database: Path, tmp_path: Path
) -> None:
    # the Poteet opinion holds these words but prints § 3730, never § 5031
    ((verdict, message),) = _quotation_verdicts(
        database, tmp_path, f"It says \u201c{FCA}.\u201d 18 U.S.C. \u00a7 5031.\n"
    )
    assert verdict == "unverifiable", message


def test_an_id_after_a_transcript_or_guideline_cite_is_theirs_not_the_case_s(
    database: Path, tmp_path: Path
) -> None:
    # United States v. Landry, 631 F.3d 597 (1st Cir. 2011): a case, then "Trial Tr. vol. II, 428.", then
    # the Government's words cited "Id. at 440"; United States v. Rodriguez, 26 F.3d 4 (1st Cir. 1994):
    # "U.S.S.G. Sec. 2L1.2 (Nov. 1990)", then "Id., comment (n. 3)"
    report = verify_text(
        database,
        tmp_path,
        f"The Act reaches qui tam suits. {POTEET_CITE}, 106 (1st Cir. 2010). The witness said so. Trial Tr. "
        "vol. II, 428. The Government added that \u201cthe record of this matter is not cited here.\u201d "
        "Id. at 440.\n\n"
        f"The Act reaches qui tam suits. {POTEET_CITE}, 106 (1st Cir. 2010). The level rises by 16, U.S.S.G. "
        "Sec. 2L1.2 (Nov. 1990), and more may follow. Id., comment (n. 3).\n\n"
        f"The Act reaches qui tam suits. {POTEET_CITE}, 106 (1st Cir. 2010) (citing Tr. 45). Id. at 106.\n",
    )
    flags = [(f.kind, f.verdict, f.message) for f in report.flags if f.kind in ("quotation", "id")]
    (quotation,) = [f for f in flags if f[0] == "quotation"]
    assert quotation[1] == "verified" and "note.txt" in quotation[2], (
        flags
    )  # the record's words, not Poteet's
    ids = [f for f in flags if f[0] == "id"]
    assert [verdict for _, verdict, _ in ids] == ["unverifiable", "unverifiable", "verified"], flags
    assert "'Trial Tr. vol. II, 428'" in ids[0][2] and "U.S.S.G. Sec. 2L1.2" in ids[1][2], flags


def test_a_rule_of_court_s_quotation_and_the_id_after_it_rest_on_the_rule(
    database: Path, tmp_path: Path
) -> None:
    # Downey v. Bob's Discount Furniture Holdings, Inc., 633 F.3d 1 (1st Cir. 2011), quoting Rule 26 and citing
    # "Fed. R.Civ.P. 26(a)(2)(B)"; Harriman v. Hancock County, 627 F.3d 22 (1st Cir. 2010), "Fed.R.Civ.P. 26(e)(1)(A)"
    report = verify_text(
        database,
        tmp_path,
        f"The Act reaches qui tam suits. {POTEET_CITE}, 106 (1st Cir. 2010). A party must disclose \u201cthe "
        "identity of any witness it may use at trial to present evidence.\u201d Fed. R.Civ.P. 26(a)(2)(A). It "
        "must do so \u201cat the times and in the sequence that the court orders.\u201d Id. 26(a)(2)(D). The "
        "Fourth Amendment protects \u201cthe right of the people to be secure in their persons.\u201d U.S. Const. "
        "amend. IV.\n",
    )
    verdicts = [
        (f.kind, f.text, f.verdict, f.reason)
        for f in report.flags
        if f.kind in ("quotation", "id", "statute")
    ]
    assert [(kind, verdict) for kind, _, verdict, _ in verdicts] == [
        ("quotation", "unverifiable"),  # never "no citation given", nor Poteet's words
        ("statute", "unverifiable"),
        ("quotation", "unverifiable"),
        ("id", "unverifiable"),  # the rule's, not the case's
        ("quotation", "unverifiable"),
        ("statute", "unverifiable"),
    ], verdicts
    assert {reason for *_, reason in verdicts} == {"not-checkable"}, verdicts


@pytest.mark.parametrize(
    ("court", "verdict"),
    [("1st Cir. 1993", "verified"), ("2d Cir. 1993", "contradicted"), ("D. Mass. 1993", "verified")],
)
def test_a_citation_to_another_circuit_than_the_head_names_is_contradicted(
    database: Path, tmp_path: Path, court: str, verdict: str
) -> None:
    # the Gloves copy's head: "United States Court of Appeals, / First Circuit."; a district court's
    # parenthetical names no circuit and is not compared
    flag = _case_flag(
        database,
        tmp_path,
        f"The motion was late. United States v. 789 Cases of Latex Surgeon Gloves, 13 F.3d 12, 14 ({court}).\n",
    )
    assert flag.verdict == verdict, flag.message
    if verdict == "contradicted":
        assert "Court of Appeals for the 1st Circuit, not the 2d Circuit" in flag.message, flag.message


def test_a_docket_citation_s_circuit_is_the_one_its_pleading_paper_head_names(
    database: Path, tmp_path: Path
) -> None:
    # the Luna slip's head runs "UNITED STATES COURT OF APPEALS" / "3  FOR THE SECOND CIRCUIT"
    flags = _verdicts(
        database,
        tmp_path,
        "The order stands. United States v. Hawkins, No. 07-3018-cr (2d Cir. Oct. 16, 2008).\n\n"
        "It does not. United States v. Hawkins, No. 07-3018-cr (1st Cir. Oct. 16, 2008).\n",
    )
    assert [severity for _, severity in flags] == ["ok", "block"], flags


def test_a_head_names_its_own_circuit_not_the_one_a_case_came_from() -> None:
    from drafting.verify.circuits import circuit_of_head

    assert circuit_of_head("United States Court of Appeals,\nFirst Circuit.\nDecided Dec. 28, 1993.") == "1st"
    # a Supreme Court slip's head: "ON WRIT OF CERTIORARI TO THE UNITED STATES COURT OF APPEALS FOR THE TENTH CIRCUIT"
    assert (
        circuit_of_head("ON WRIT OF CERTIORARI TO THE UNITED STATES COURT OF APPEALS FOR THE TENTH CIRCUIT")
        == ""
    )
    assert (
        circuit_of_head("Court of Appeals for the Ninth Circuit; Court of Appeals for the Fifth Circuit")
        == ""
    )


def test_a_quotation_that_says_it_omits_citations_may_skip_the_source_s_citation_and_nothing_else(
    database: Path, tmp_path: Path
) -> None:
    # The Poteet opinion cites 31 U.S.C. § 3730 between these two sentences, over a page break.
    before = (
        "to file qui tam actions on behalf of the United States against persons or entities who knowingly"
    )
    said = f"\u201c{before} submit false claims to the federal government. In 2007, Jacqueline Kay Poteet"
    cite = f"{POTEET_CITE}, 106-07 (1st Cir. 2010)"
    verdicts = _quotation_verdicts(
        database,
        tmp_path,
        f"The Act says so. {said} brought a qui tam action.\u201d {cite} (citation omitted).\n\n"
        f"The Act says so. {said} brought a qui tam action.\u201d {cite} (cleaned up).\n\n"
        f"The Act says so. {said} brought a qui tam action.\u201d {cite}.\n\n"
        f"The Act says so. \u201c{before} submit false claims to the federal government. Poteet brought a qui "
        f"tam action.\u201d {cite} (cleaned up).\n",
    )
    assert [v for v, _ in verdicts] == ["verified", "verified", "contradicted", "contradicted"], verdicts
    assert "but for the citations it says it omits" in verdicts[0][1] and "pages 106-107" in verdicts[0][1]


def test_a_citation_to_another_district_than_the_opinion_s_head_names_is_contradicted(
    database: Path, tmp_path: Path
) -> None:
    cite = "Democracy N.C. v. N.C. State Bd. of Elections, 590 F. Supp. 3d 850"
    flags = [
        _case_flag(database, tmp_path, f"The court held so. {cite}, 860 (M.D.N.C. 2022).\n"),
        _case_flag(database, tmp_path, f"The court held so. {cite}, 860 (E.D.N.C. 2022).\n"),
        _case_flag(database, tmp_path, f"The court held so. {cite}, 860 (S.D.N.Y. 2022).\n"),
        _case_flag(database, tmp_path, f"The court held so. {cite}, 860 (2022).\n"),
    ]
    assert [f.verdict for f in flags] == ["verified", "contradicted", "contradicted", "verified"], [
        f.message for f in flags
    ]
    assert "Middle District of North Carolina, not the Eastern District of North Carolina" in flags[1].message
