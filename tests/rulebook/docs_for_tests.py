"""Small rulebook documents written for the tests, in chukker's own words (not the rulebook's).

* a French side-by-side page (translation, "Texte original", original);
* a Dutch one, whose marker chukker does not know (needs ``--lang nl``);
* an English web page with nested lists, interpretations and examples, and
  its French translation as its own page (one clause missing, one extra);
* a two-column PDF drawn with reportlab (:func:`two_column_pdf`).
"""

from __future__ import annotations

from pathlib import Path

FRENCH_PAGE = """\
Règle 16 · USPA 2026 Arena Rules
Coups francs et pénalités
How a free hit is set up after a foul, in the words of this test.
16a
Placement de la balle
L'arbitre pose la balle à l'endroit désigné pour le coup franc.
Texte original
The umpire sets the ball down where the free hit is to be taken.
16b
Distance des défenseurs
Les défenseurs se tiennent à bonne distance jusqu'à la frappe.
Texte original
Defenders keep well back until the ball is struck.
16c
Reprise du jeu
Le jeu reprend dès que la balle est frappée ou touchée.
Texte original
Play starts again as soon as the ball is hit or touched.
16c interpretation
Les arbitres décident si la touche était volontaire.
Texte original
The umpires decide whether the touch was meant.
Traduction pour apprendre ; l'original anglais prévaut.
"""

DUTCH_PAGE = """\
Regel 17 · USPA 2026 Arena Rules
Scheidsrechters
Who officiates an arena game, written for this test.
17a
Twee scheidsrechters
Twee scheidsrechters leiden de wedstrijd te paard.
Oorspronkelijke tekst
Two umpires on horseback run the game.
17b
De derde man
Een derde man beslist als de scheidsrechters het oneens zijn.
Oorspronkelijke tekst
A referee settles it when the umpires disagree.
Vertaling om te leren; het Engelse origineel geldt.
"""

ENGLISH_HTML = """\
<!DOCTYPE html>
<html lang="en">
<head><title>USPA 2031 Arena Rules</title></head>
<body>
<nav>Home · Rules · Contact</nav>
<h1>USPA 2031 Arena Rules</h1>
<h2>RULE 4</h2>
<h3>Mallets and helmets</h3>
<p>Every player carries gear that keeps the game safe for all.</p>
<ol type="a">
  <li><strong>Helmets.</strong> A helmet with a chin strap is worn at all times.
    <ol>
      <li>The strap is fastened before the player mounts.</li>
      <li>A broken helmet is changed at the next stoppage.</li>
    </ol>
  </li>
  <li><strong>Mallets.</strong> A mallet may be of any length the player likes.</li>
  <li id="r4c">Spurs must be blunt and point down.</li>
</ol>
<p class="interpretation">Interpretation: a spur that turns up during play is fixed at once.</p>
<h2>RULE 5</h2>
<h3>Periods</h3>
<ol type="a">
  <li>Each period lasts a fixed number of minutes.</li>
  <li>A bell tells the players that time is up.</li>
</ol>
<p>Examples: a goal scored as the bell rings still counts.</p>
</body>
</html>
"""

FRENCH_HTML = """\
<!DOCTYPE html>
<html lang="fr">
<head><title>Règlement USPA 2031 Arena Rules</title></head>
<body>
<h1>Règlement USPA 2031 Arena Rules</h1>
<h2>RÈGLE 4</h2>
<h3>Maillets et casques</h3>
<p>Chaque joueur porte un équipement qui protège tout le monde.</p>
<ol type="a">
  <li><strong>Casques.</strong> Un casque avec jugulaire se porte en permanence.
    <ol>
      <li>La jugulaire est attachée avant de monter.</li>
    </ol>
  </li>
  <li><strong>Maillets.</strong> Le maillet a la longueur que le joueur préfère.</li>
  <li>Les éperons sont émoussés et tournés vers le bas.</li>
  <li>Une clause que l'original n'a pas.</li>
</ol>
<p class="interpretation">Interprétation : un éperon qui se relève est corrigé aussitôt.</p>
</body>
</html>
"""

#: (rule, name, [(marker, text)]) of the generated two-column PDF
PDF_RULES: list[tuple[int, str, list[tuple[str, str]]]] = [
    (
        7,
        "Safety of horses",
        [
            ("", "Horses are checked by a vet before the first game of the day."),
            ("a.", "A lame horse leaves the arena and does not come back that day."),
            ("b.", "Bandages and boots are allowed on every leg."),
            ("1.", "Boots must not have buckles that stick out."),
            ("c.", "A horse that bleeds is taken off until the bleeding stops."),
        ],
    ),
    (
        8,
        "Changing horses",
        [
            ("a.", "Players may change horses at any stoppage of play."),
            ("b.", "A player whose horse is hurt may change it at once."),
            ("", "Interpretation: a tired horse is not a hurt horse."),
        ],
    ),
]


def two_column_pdf(
    path: Path,
    rules: list[tuple[int, str, list[tuple[str, str]]]] | None = None,
    title: str = "USPA 2032 Arena Rules",
    rule_word: str = "RULE",
    repeat: int = 1,
) -> int:
    """Draw a two-column rulebook PDF with reportlab; returns the number of pages.

    Each rule starts in the next free column; text wraps at the column's
    width; every page has a running head and a page number (which the
    importer must leave out). ``repeat`` draws the rules that many times,
    renumbered, for the benchmark.
    """
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen import canvas

    rules = rules if rules is not None else PDF_RULES
    width, height = A4
    margin, gutter, size, lead = 50.0, 24.0, 10.0, 13.0
    col_w = (width - 2 * margin - gutter) / 2
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setTitle(title)
    pages = 1
    col = 0
    y = height - margin - 30

    def page_furniture() -> None:
        c.setFont("Helvetica", 8)
        c.drawString(margin, height - margin, title)
        c.drawString(width / 2, margin - 20, str(pages))

    def line(text: str, x_off: float = 0.0, font: str = "Helvetica") -> None:
        nonlocal y, col, pages
        if y < margin + lead:
            if col == 0:
                col = 1
            else:
                c.showPage()
                pages += 1
                page_furniture()
                col = 0
            y = height - margin - 30
        c.setFont(font, size)
        c.drawString(margin + col * (col_w + gutter) + x_off, y, text)
        y -= lead

    def wrap(text: str, avail: float) -> list[str]:
        out, cur = [], ""
        for w in text.split():
            cand = f"{cur} {w}".strip()
            if stringWidth(cand, "Helvetica", size) > avail and cur:
                out.append(cur)
                cur = w
            else:
                cur = cand
        return [*out, cur] if cur else out

    page_furniture()
    c.setFont("Helvetica-Bold", 14)
    c.drawString(margin, height - margin - 16, title)
    n = 0
    for _ in range(repeat):
        for number, name, paras in rules:
            n += 1
            num = number if repeat == 1 else n
            y -= lead / 2
            line(f"{rule_word} {num}", font="Helvetica-Bold")
            line(name, font="Helvetica-Bold")
            for marker, text in paras:
                y -= lead / 2
                first = f"{marker} {text}".strip()
                for i, part in enumerate(wrap(first, col_w - 12)):
                    line(part, 0.0 if i == 0 else 12.0)
    c.save()
    return pages


RUSSIAN_PAGE = """\
Правило 18 · USPA 2026 Arena Rules
Свисток судьи
What the whistle means, written for this test.
18a
Остановка игры
Судья свистит, и игра останавливается.
Исходный текст
The umpire whistles and play stops.
18b
Возобновление
Игра возобновляется после второго свистка судьи.
Исходный текст
Play starts again at the umpire's second whistle.
Перевод для обучения; английский оригинал имеет силу.
"""
