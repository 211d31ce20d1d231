"""An address stated after the words that announce one (cues.py ADDRESS_WORDS, sensitive/stated_address.py):
found in any language and script without a street-type word beside the house number, and only when a
house number or a postal code follows the cue, so that ordinary talk about addresses, living at home or
at a number of places is not flagged."""

from __future__ import annotations

import pytest

from agent_signals.core.screening.sensitive import findings, redact, sensitive_kinds
from agent_signals.core.screening.sensitive.stated_address import find_stated_addresses

pytestmark = pytest.mark.unit

# (language, text, the part that must lie inside one finding)
POSITIVES = [
    ("el", "Η διεύθυνσή μου είναι Αριστοτέλους 35, 3ος όροφος, Θεσσαλονίκη 546 23.", "Αριστοτέλους 35, 3ος όροφος"),
    ("en", "Lives at Αριστοτέλους 35, 3ος όροφος, Thessaloniki 546 23", "Αριστοτέλους 35, 3ος όροφος"),
    ("hi-Latn", "courier bhejna ho toh ghar ka address hai: flat 302, Sai Krupa Apartments, Baner Road, Pune", "flat 302, Sai Krupa Apartments"),
    ("en", "Home address is flat 302, Sai Krupa Apartments, Baner Road, Pune", "flat 302, Sai Krupa Apartments"),
    ("en", "I live at Rosewood 14, Eastleigh. Come by any time.", "Rosewood 14"),
    ("en", "Address: Unit 7, Harbour View, Wellington 6011", "Unit 7, Harbour View"),
    ("fr", "Mon adresse est Résidence Les Pins, bât. 3, 13008 Marseille.", "Résidence Les Pins, bât. 3"),
    ("de", "Meine Adresse lautet Am Anger 12, 99084 Erfurt.", "Am Anger 12"),
    ("es", "Mi dirección es Urbanización El Pinar 22, Marbella", "El Pinar 22"),
    ("it", "Il mio indirizzo è Borgo Pinti 18, Firenze", "Borgo Pinti 18"),
    ("pt", "Meu endereço é Quadra 104, Bloco C, Brasília", "Quadra 104, Bloco C"),
    ("nl", "Mijn adres is Oudegracht 231, Utrecht", "Oudegracht 231"),
    ("pl", "Mój adres to Rynek 15/3, Kraków", "Rynek 15/3"),
    ("ru", "Мой адрес: Невский 28, кв. 5, Санкт-Петербург", "Невский 28, кв. 5"),
    ("uk", "Моя адреса: Хрещатик 22, кв. 7, Київ", "Хрещатик 22, кв. 7"),
    ("tr", "Adresim Moda 45/3, Kadıköy", "Moda 45/3"),
    ("sv", "Min adress är Storgården 4B, Uppsala", "Storgården 4B"),
    ("fi", "Osoitteeni on Kauppakartano 3 A 12, Tampere", "Kauppakartano 3 A 12"),
    ("cs", "Moje adresa je Vinohrady 42, Praha 2", "Vinohrady 42"),
    ("ro", "Adresa mea este Bloc P3, scara B, ap. 12, Cluj", "Bloc P3, scara B, ap. 12"),
    ("vi", "Địa chỉ nhà mình là 12 Lê Lợi, Quận 1, TP.HCM", "12 Lê Lợi"),
    ("id", "Alamat saya Perumahan Griya Asri Blok C 12, Bekasi", "Griya Asri Blok C 12"),
    ("th", "ที่อยู่ของฉันคือ 99/1 หมู่ 3 ตำบลบางพลี", "99/1 หมู่ 3"),
    ("he", "הכתובת שלי היא הנביאים 47, ירושלים", "הנביאים 47"),
    ("ar", "عنواني: حي النزهة، فيلا 12، الرياض", "فيلا 12"),
    ("hi", "मेरा पता है: 14, शांति निकेतन, पुणे", "14, शांति निकेतन"),
    ("ko", "우리 집 주소는 송파구 잠실동 40-1 이에요", "잠실동 40-1"),
    ("ja", "住所は大阪市北区梅田3-1-1です", "梅田3-1-1"),
    ("zh", "我的地址是北京市朝阳区望京西园3区", "望京西园3区"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("language", "text", "value"), POSITIVES, ids=[f"{lang}-{i}" for i, (lang, _, _) in enumerate(POSITIVES)]
)
def test_an_address_after_its_cue_is_one_finding(language, text, value):
    start = text.index(value)
    spans = [(f.start, f.end) for f in find_stated_addresses(text)]
    assert any(s <= start and start + len(value) <= e for s, e in spans), spans
    assert "address" in sensitive_kinds(text)
    assert value not in redact(text)


def test_the_value_ends_with_its_sentence_and_keeps_its_commas():
    text = "My address is Brook Farm 3, Little Ashby, Kent. I moved there in May."
    assert [text[f.start : f.end] for f in find_stated_addresses(text)] == [
        "Brook Farm 3, Little Ashby, Kent"
    ]
    # an abbreviation's full stop is not the end: "ul.", "m.", "No."
    text = "Adres do faktury: ul. Piotrkowska 212 m. 14, 90-369 Łódź. Firma jednoosobowa."
    assert [text[f.start : f.end] for f in find_stated_addresses(text)] == [
        "ul. Piotrkowska 212 m. 14, 90-369 Łódź"
    ]


def test_a_value_is_at_most_a_hundred_characters():
    text = "My address is Flat 9, " + "Long Name " * 30
    assert all(f.end - f.start <= 100 for f in find_stated_addresses(text))


# Talk about addresses, living somewhere or at a number of places: none of it is an address.
NEGATIVES = [
    "my address is on the invoice",
    "my address is on the invoice I sent 3 days ago",
    "she lives at home",
    "Lives at home with 2 cats",
    "I still live at home at 19.",
    "I live at home since 2019",
    "lives at 3 different places a year",
    "Lives at 5 min from work",
    "My address is 3 blocks from the office",
    "she addresses 3 tickets a day",
    "He addressed 12 complaints this week.",
    "the office is at level 5",
    "IP address 10.0.0.1",
    "the server's IP address is 10.0.0.1",
    "Mi dirección cambió hace 2 años",
    "Ich wohne seit 3 Jahren in Berlin.",
    "Jag bor i en 3:a i Malmö",
    "Vivo en un piso de 3 habitaciones",
    "Мой адрес знают 5 человек",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_talk_about_an_address_is_not_one(text):
    assert list(find_stated_addresses(text)) == [], [
        text[f.start : f.end] for f in find_stated_addresses(text)
    ]
    assert "address" not in sensitive_kinds(text), [(f.kind, text[f.start : f.end]) for f in findings(text)]


def test_an_email_address_is_not_a_postal_one():
    text = "My email address is jane2@example.com"
    assert list(find_stated_addresses(text)) == []
    assert sensitive_kinds(text) == ["email"]
