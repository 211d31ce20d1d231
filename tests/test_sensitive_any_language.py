"""The detectors of core/screening/sensitive/ that do not depend on the language (passwords.py, phrases.py,
identifiers.py, streets.py, birth.py): each finds its kind in scripts and languages the eleven-language
phrase tables do not read, and leaves alone the ordinary text that looks like it (versions, product
names, quantities, dates, counts, lists). Each positive here is missed without its detector."""

from __future__ import annotations

import pytest
from mnemonic import Mnemonic

from agent_signals.core.screening.screen import redact
from agent_signals.core.screening.sensitive import findings, sensitive_kinds
from agent_signals.core.screening.sensitive.passwords import password_shaped

pytestmark = pytest.mark.unit

_PHRASE_EN = (
    "legal winner thank year wave sausage worth useful legal winner thank yellow"  # BIP-39 test vector
)

# (kind, language, text, the part that must not survive redaction)
POSITIVES = [
    # a value stated after the word for a password, PIN, Wi-Fi key or code, in any language
    ("password", "pl", "klucz wifi: kotek123", "kotek123"),
    ("password", "en", "wifi code: sunflower", "sunflower"),  # round seven: a word after a code word still counts
    # round two (issue 31): a recovery key of one shape, codes spoken digit by digit, a lockbox that opens
    ("password", "tr", "Microsoft hesabımın kurtarma kodu R7KQ-2MXP-9DLT-V4HN-6WCJ, bir yere yaz", "R7KQ-2MXP-9DLT-V4HN-6WCJ"),
    ("password", "pt", "Códigos de recuperação do 2FA: K7QP-2MXD-9RTA e H4ZN-8WLC-3VYE", "K7QP-2MXD-9RTA"),
    ("door_code", "en", "the keypad code for the server room is 8-0-5-2-9", "8-0-5-2-9"),
    ("door_code", "en", "the lockbox by the loading dock opens with 3317", "3317"),
    ("address", "hi-Latn", "Courier mere ghar bhej dena: House no. 318, Sector 21C, Faridabad", "318, Sector 21C"),
    ("address", "hi", "मेरा पता है: मकान नंबर 214, सेक्टर 15-ए, नोएडा", "214, सेक्टर 15"),
    ("address", "vi", "Địa chỉ nhà mình: số 27 ngõ 165 Thái Hà, Đống Đa, Hà Nội", "ngõ 165 Thái"),
    ("password", "tr", "Wi-Fi şifresi kedi1234", "kedi1234"),
    ("password", "tr", "Banka kartımın şifresi 4490, unutursam sor.", "4490"),
    ("password", "ko", "비밀번호는 qwerty12야", "qwerty12"),
    ("password", "vi", "mật khẩu wifi nhà mình là meomeo2020", "meomeo2020"),
    ("password", "hi-Latn", "bhai mera atm pin 4567 hai, yaad rakhna", "4567"),
    ("password", "hi", "वाईफाई का पासवर्ड sharma@2020 है", "sharma@2020"),
    ("password", "ar", "كلمة السر هي shams2020", "shams2020"),
    ("password", "he", "הסיסמה שלי היא dubi2020", "dubi2020"),
    ("password", "th", "รหัสผ่านคือ abc12345", "abc12345"),
    ("password", "el", "Ο κωδικός PIN της κάρτας μου είναι 6093, μην τον ξεχάσεις.", "6093"),
    ("password", "sv", "lösenordet är Blomma77", "Blomma77"),
    ("password", "fi", "Salasanani on Kissa2023", "Kissa2023"),
    ("password", "id", "Kode pintu rumah saya 4821, tolong ingat ya.", "4821"),
    ("password", "uk", "Код від домофону 1793", "1793"),
    ("password", "tr", "şifrem: kediciğim", "kediciğim"),
    # a password-shaped token with no word for it
    ("password", "en", "use Sunflower!1987 for the shared drive", "Sunflower!1987"),
    ("password", "en", "it's xK9mP2qLw7 on the router", "xK9mP2qLw7"),
    # recovery phrases (BIP-39, every list mnemonic ships) and backup codes
    ("password", "en", f"my seed phrase: {_PHRASE_EN}", "sausage worth useful"),
    ("password", "es", "Frase: " + " ".join(Mnemonic("spanish").to_mnemonic(bytes(16)).split()[:1] * 11 + ["abierto"]), "abierto"),
    ("password", "ja", "\u3000".join(Mnemonic("japanese").to_mnemonic(bytes(range(16))).split("\u3000")), "\u3000"),
    ("password", "en", "Backup codes: 83472910, 55210983, 11230094", "55210983"),
    ("password", "en", "recovery codes\n- a1b2c-3d4e5\n- 9x8y7-6w5v4", "9x8y7-6w5v4"),
    ("password", "tr", "Google yedek kodlarım: 4829 1038, 5571 2290, 6648 0012", "5571 2290"),
    # long runs of digits, however grouped
    ("national_id", "hi-Latn", "Aadhaar: 2345 6789 0123", "6789"),
    ("national_id", "ko", "주민번호는 900101-1234567입니다", "1234567"),
    ("national_id", "th", "เลขบัตรประชาชน 1-1015-00089-31-5", "00089"),
    ("national_id", "tr", "TC kimlik no: 10000000146", "10000000146"),
    ("national_id", "he", "ת.ז. 123456782", "123456782"),
    # python-stdnum's catalogue: letters and digits in a module's own format
    ("national_id", "hi-Latn", "ITR file karna hai, mera PAN MFCPT7726G hai", "MFCPT7726G"),
    ("national_id", "en", "Invoice details: Rohan Bansal, EPDPB1072T, GST not applicable.", "EPDPB1072T"),
    # passports: near the word in any language, of a passport's shape, a machine-readable zone
    ("national_id", "ko", "여권번호 M12345678", "M12345678"),
    ("national_id", "en", "My passport was renewed. The number is X1234567.", "X1234567"),
    ("national_id", "fr", "le numéro de document c'est 21KD48375, valable jusqu'en 2030", "21KD48375"),
    ("national_id", "en", "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "ERIKSSON"),
    # street addresses by structure
    ("address", "pl", "ul. Marszałkowska 10, 00-590 Warszawa", "Marszałkowska 10"),
    ("address", "tr", "Adresim: Moda Caddesi No:45 D:3 Kadıköy", "Moda Caddesi No:45"),
    ("address", "hu", "Lakcímem: Kossuth Lajos utca 12, Budapest", "utca 12"),
    ("address", "uk", "Живу на вулиці Шевченка, 14, Львів", "Шевченка, 14"),
    ("address", "el", "Μένω πλέον στην οδό Αγίου Δημητρίου 63, Θεσσαλονίκη", "Δημητρίου 63"),
    ("address", "id", "Alamat saya Jl. Merdeka No. 17, Bandung", "Merdeka No. 17"),
    ("address", "he", "הכתובת שלי: שדרות רוטשילד 45, תל אביב", "רוטשילד 45"),
    ("address", "ar", "عنواني الجديد: شارع وصفي التل، عمارة 48، عمّان", "عمارة 48"),
    ("address", "th", "ที่อยู่ ถนนสุขุมวิท 123", "สุขุมวิท 123"),
    ("address", "sv", "Bor på Storgatan 12, 114 55 Stockholm", "Storgatan 12"),
    ("address", "fi", "Asun osoitteessa Hämeentie 33 B 12, Helsinki.", "Hämeentie 33"),
    ("address", "ko", "우리 집 주소는 서울시 마포구 월드컵로 240이에요", "월드컵로 240"),
    ("address", "vi", "Địa chỉ: số 45 phố Hàng Bạc, Hà Nội", "45 phố Hàng"),
    ("address", "hi", "मेरा पता: गांधी मार्ग 12, दिल्ली", "मार्ग 12"),
    ("address", "zh", "我的新地址是上海市徐汇区漕溪北路88弄5号1102室", "88弄5号"),
    ("address", "ja", "住所は東京都新宿区西新宿2-8-1です", "2-8-1"),
    # dates of birth in any language
    ("date_of_birth", "tr", "doğum tarihim 15 Mart 1990", "15 Mart 1990"),
    ("date_of_birth", "ko", "생년월일은 1990년 3월 12일", "1990년 3월 12"),
    ("date_of_birth", "vi", "ngày sinh: 5 tháng 6 năm 1990", "1990"),
    ("date_of_birth", "th", "เกิดวันที่ 12 มีนาคม 2533", "2533"),
    ("date_of_birth", "he", "נולדתי ב-12 במרץ 1990", "1990"),
    ("date_of_birth", "ar", "تاريخ الميلاد 12 مارس 1990", "1990"),
    ("date_of_birth", "hi", "मेरी जन्मतिथि 15/08/1990 है", "15/08/1990"),
    ("date_of_birth", "el", "Γεννήθηκα στις 12 Μαρτίου 1988", "1988"),
    ("date_of_birth", "uk", "народилася 3 вересня 1990 року", "1990"),
    ("date_of_birth", "id", "saya lahir tanggal 17 Agustus 1992", "1992"),
    ("date_of_birth", "sv", "född 1985-07-09", "1985-07-09"),
]  # fmt: skip

# Ordinary text with the same shapes: none of it may be flagged.
NEGATIVES = [
    "I use Python3 and an iPhone15, GPT-4o and COVID-19, H100, 2FA, B2B, 10x, v2.3.1, 4K, MP3, S3, e2e",
    "i7-12700K and RTX4090Ti, MacBookPro2019, batch_size=32 and lr=3e-4, 10+years, 50%off",
    "I rotate the service-account passwords every 90 days across 1200 servers.",
    "For code: type hints everywhere, and 4-space indents.",  # a word after a bare "code" and a mark
    "release-2024-10-01 and ticket ABCD-1234-EFGH",
    "I work in Sector 5 of the plant",
    "Şifre politikamız en az 12 karakter ve 90 günde bir değişiyor.",
    "אני מנהל סיסמאות ל-300 עובדים כבר 5 שנים.",
    "비밀번호 정책은 최소 12자이고 90일마다 바꿔야 해요.",
    "I process about 60 passport applications a week at the consulate.",
    "My flight LH1234 leaves on 3 May from gate B12.",
    "Product code SKU-12345-XL is out of stock.",
    "ISBN 978-3-16-148410-0 is the book I'm translating.",
    "The database has 123456789 rows and grows by 2000000 a day.",
    "Our revenue was 12 500 000 € last year; the population is 8 400 000.",
    "Windows build 10.0.19045.3803, released 01.01.2020-31.12.2020",
    "Price went from 100000 to 150000, then 100000-150000 a year",
    "Scores: 12 15 18 21 24 27 30",
    "I was born in 1990 in Seoul and moved to Busan in 2005.",
    "Tôi sinh năm 1992 ở Huế.",
    "İstanbul'da Bağdat Caddesi'nde 5 yıldır yaşıyorum.",
    "Tôi sống ở đường Lê Lợi được 4 năm rồi.",
    "I walked 10000 steps on the road for 3 hours",
    "버스로 30분 걸려요",
    "Arbeitsplatz 2 Tage",
    "We have 4 environments: dev1, dev2, staging3, prod4.",
    "I worked at Google from 2012-2018 and at Meta 2018-2022.",
    "Ev kiram 15000 TL, işe 45 dakikada gidiyorum.",
    "We ran 3 A/B tests with 10000 users each, 250000, 300000 in total",
    "The meeting is at 14:30 on 12.03.2024 in room 4B.",
    "I abandon the idea about the able actor above",
]


@pytest.mark.parametrize(
    ("kind", "language", "text", "value"),
    POSITIVES,
    ids=[f"{kind}-{language}-{i}" for i, (kind, language, _, _) in enumerate(POSITIVES)],
)
def test_each_kind_is_found_and_redacted_in_any_language(kind, language, text, value):
    assert kind in sensitive_kinds(text), [(f.kind, text[f.start : f.end]) for f in findings(text)]
    redacted = redact(text)
    assert value not in redacted, redacted


@pytest.mark.parametrize("text", NEGATIVES)
def test_ordinary_text_of_the_same_shapes_is_not_flagged(text):
    assert findings(text) == [], [(f.kind, text[f.start : f.end]) for f in findings(text)]


@pytest.mark.parametrize(
    ("token", "shaped"),
    [
        ("Sunflower!1987", True),
        ("Tr0ub4dor&3", True),
        ("xK9mP2qL", True),
        ("Python3.11", False),
        ("iPhone15Pro", False),
        ("COVID-19", False),
        ("GPT-4o-mini", False),
        ("user@example.com", False),
        ("C++17/C#10", False),
        ("AT&T5G-2024", False),
        ("aaaa1111!!", False),
    ],
)
def test_password_shape(token, shaped):
    assert password_shaped(token) is shaped


def test_a_recovery_phrase_needs_twelve_listed_words_in_a_row():
    words = _PHRASE_EN.split()
    assert sensitive_kinds(" ".join(words)) == ["password"]
    assert sensitive_kinds(" ".join(words[:11]) + " and the rest") == []


def test_a_chinese_phrase_counts_only_written_apart():
    phrase = Mnemonic("chinese_simplified").to_mnemonic(bytes(range(16)))
    assert sensitive_kinds(phrase) == ["password"]
    assert sensitive_kinds(phrase.replace(" ", "")) == []


def test_a_short_number_needs_a_word_for_an_identity_near():
    assert sensitive_kinds("ticket 1234567 was closed") == []  # seven digits, no module check is strong
    assert sensitive_kinds("my ID number is 1234567") == ["national_id"]


def test_a_date_of_birth_needs_a_year_more_than_twelve_years_ago():
    assert sensitive_kinds("doğum tarihim 15 Mart 2024") == []
    assert sensitive_kinds("doğum tarihim 15 Mart 1990") == ["date_of_birth"]
