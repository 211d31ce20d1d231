"""Secrets and identifiers (sensitive.py, through screen.py's `sensitive_kinds` and `redact`): each kind
is found in each language it is said in and redacted to `[<kind> redacted]`, and ordinary signal text
is left alone. detect-secrets runs in-process: it reads no configuration file and opens no socket."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from agent_signals.core.screening.screen import redact, sensitive_kinds

pytestmark = pytest.mark.unit

# (kind, language, text, the part that must not survive redaction)
POSITIVES = [
    # passwords, PINs and passphrases stated in words
    ("password", "en", "My password is Sunflower!1987, in case I forget it.", "Sunflower!1987"),
    ("password", "en", "The wifi passphrase at home is purple-otter-kettle-93.", "purple-otter-kettle-93"),
    ("password", "en", "my PIN is 4821", "4821"),
    ("password", "en", "my passphrase is correct horse battery staple, ok", "correct horse battery staple"),
    ("password", "en", "db password = 'Tr0ub4dor&3'", "Tr0ub4dor&3"),
    ("password", "fr", "Mon mot de passe est Chaton2019! ne le dis à personne.", "Chaton2019"),
    ("password", "fr", "mon mot de passe est soleil", "soleil"),
    ("password", "de", "Mein Passwort lautet Bergsee2023, merk es dir bitte.", "Bergsee2023"),
    ("password", "de", "mein Passwort lautet Sonnenschein", "Sonnenschein"),
    ("password", "es", "Mi contraseña es Perrito#77, apúntala por si la olvido.", "Perrito#77"),
    ("password", "es", "mi PIN es el 1234", "1234"),
    ("password", "it", "La mia password è Gattino!55, ricordamela tu.", "Gattino!55"),
    ("password", "pt", "Minha senha é Saudade@2020, guarde para mim.", "Saudade@2020"),
    ("password", "nl", "Mijn wachtwoord is Tulpen42! voor het geval ik het vergeet.", "Tulpen42"),
    ("password", "pl", "Moje hasło to Kotek#909, zapamiętaj je.", "Kotek#909"),
    ("password", "ru", "Мой пароль: Solnce_1984, запомни его.", "Solnce_1984"),
    ("password", "ru", "мой пароль — солнышко", "солнышко"),
    ("password", "zh", "我的密码是 Mima#5566，帮我记住。", "Mima#5566"),
    ("password", "zh", "我的密码是abc123", "abc123"),
    ("password", "ja", "私のパスワードは sakura0401 です。", "sakura0401"),
    # credentials and high-entropy strings (detect-secrets)
    ("api_key", "en", "my key: sk-proj-Q7vX2mN9pL4kR8tY1wZ6cB3dF5gH0jK2sA9eU4iO", "Q7vX2mN9pL4kR8tY1wZ6cB3dF5gH0jK2sA9eU4iO"),
    ("api_key", "en", "My GitHub token is ghp_8fK2LmN4pQ7rS1tU9vW3xY6zA0bC5dE7gH2j", "8fK2LmN4pQ7rS1tU9vW3xY6zA0bC5dE7gH2j"),
    ("api_key", "en", "AWS creds: AKIA4QX7ZRB2MWKP9TNE / hT8q+Vn3Lw9xZk2Rp7Yb5Cm1Df6Gs4Ja0Ue8Io3Xy", "hT8q+Vn3Lw9xZk2Rp7Yb5Cm1Df6Gs4Ja0Ue8Io3Xy"),
    ("api_key", "en", "Slack bot token: xoxb-2048-1357911-AbCdEfGhIjKlMnOpQrStUvWx", "AbCdEfGhIjKlMnOpQrStUvWx"),
    ("api_key", "en", "Use my session: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1MTIzIn0.4pX9kQ2vL8mN3bR7tY1wZ6", "eyJzdWIiOiJ1MTIzIn0"),
    ("api_key", "de", "Mein API-Schlüssel fürs Staging lautet 7c1e9a4b2f8d6e3a0b5c9d7f1e2a4b6c.", "7c1e9a4b2f8d6e3a0b5c9d7f1e2a4b6c"),
    ("api_key", "es", "Mi clave de Stripe es sk_live_51Hx9QwErTyUiOpAsDfGhJkLzXcV, no la compartas.", "51Hx9QwErTyUiOpAsDfGhJkLzXcV"),
    ("password", "en", "the replica is at https://admin:S3cr3tPass@db.example.com:5432", "S3cr3tPass"),
    # card numbers (Luhn, python-stdnum)
    ("card_number", "en", "My card number is 4539 1488 0343 6467, expiry 09/27.", "4539 1488 0343 6467"),
    ("card_number", "es", "El número de mi tarjeta es 5555-5555-5555-4444.", "5555-5555-5555-4444"),
    ("card_number", "fr", "Ma carte American Express : 3782 822463 10005.", "3782 822463 10005"),
    ("card_number", "ja", "私のカード番号は4929123456789015です。", "4929123456789015"),
    # IBANs (python-stdnum)
    ("iban", "en", "My IBAN is GB82 WEST 1234 5698 7654 32 if you need to pay me back.", "5698 7654 32"),
    ("iban", "de", "Meine IBAN lautet DE89 3704 0044 0532 0130 00.", "0532 0130 00"),
    ("iban", "fr", "Mon IBAN : FR14 2004 1010 0505 0001 3M02 606", "3M02 606"),
    ("iban", "es", "Mi IBAN es ES9121000418450200051332, para las transferencias.", "ES9121000418450200051332"),
    ("iban", "nl", "Mijn IBAN is NL91 ABNA 0417 1643 00.", "0417 1643 00"),
    ("iban", "it", "Il mio IBAN è IT60 X054 2811 1010 0000 0123 456.", "0123 456"),
    ("iban", "pt", "O meu IBAN é PT50 0002 0123 1234 5678 9015 4.", "9015 4"),
    # national identification numbers (python-stdnum; the NINO by its official prefix rules)
    ("national_id", "en", "My National Insurance number is JK 45 67 89 B.", "JK 45 67 89 B"),
    ("national_id", "en", "NI number for the payroll form: SN821933A", "SN821933A"),
    ("national_id", "es", "Mi número de la Seguridad Social británica es PW 12 34 56 D.", "PW 12 34 56 D"),
    ("national_id", "en", "my SSN is 536-22-5478", "536-22-5478"),
    ("national_id", "en", "NHS number 943 476 5919", "943 476 5919"),
    ("national_id", "en", "my passport number is 512345678", "512345678"),
    ("national_id", "fr", "mon numéro de sécu : 2 95 10 99 126 111 93", "126 111 93"),
    ("national_id", "de", "meine Steuer-ID ist 36 574 261 809", "36 574 261 809"),
    ("national_id", "es", "mi DNI es 54362315-K", "54362315-K"),
    ("national_id", "es", "mi NIE: X-2482300-W", "2482300"),
    ("national_id", "it", "il mio codice fiscale è RCCMNL83S18D969H", "RCCMNL83S18D969H"),
    ("national_id", "pt", "o meu CPF é 390.533.447-05", "390.533.447-05"),
    ("national_id", "zh", "我的身份证号码是360426199101010071", "360426199101010071"),
    # phone numbers (phonenumbers) and phone numbers in words
    ("phone", "en", "call me on +1 (415) 555-0132", "555-0132"),
    ("phone", "en", "My mobile is +44 7700 900123.", "7700 900123"),
    ("phone", "en", "my number is 07700 900123", "07700 900123"),
    ("phone", "en", "office: 020 7946 0958", "7946 0958"),
    ("phone", "fr", "Mon portable : 06 12 34 56 78.", "06 12 34 56 78"),
    ("phone", "de", "ruf mich an: 0170 123 45 67", "0170 123 45 67"),
    ("phone", "es", "Mi teléfono es +34 612 345 678.", "612 345 678"),
    ("phone", "it", "il mio numero è 347 123 4567", "347 123 4567"),
    ("phone", "nl", "mijn nummer is 06-12345678", "06-12345678"),
    ("phone", "ru", "мой телефон +7 912 345-67-89", "345-67-89"),
    ("phone", "zh", "我的手机号是 138 0013 8000。", "138 0013 8000"),
    ("phone", "ja", "電話番号は090-1234-5678です。", "090-1234-5678"),
    ("phone", "en", "five five five, one two three four", "five five five, one two three four"),
    ("phone", "en", "Call me on oh seven seven double oh, nine double oh, one two three.", "nine double oh"),
    ("phone", "fr", "mon numéro : zéro six, douze, trente-quatre, cinquante-six, soixante-dix-huit", "trente-quatre"),
    ("phone", "de", "Meine Handynummer ist null eins sieben eins, zwei drei vier fünf sechs sieben acht.", "zwei drei vier"),
    ("phone", "es", "mi número es seis uno dos, tres cuatro cinco, seis siete ocho", "tres cuatro cinco"),
    ("phone", "it", "chiamami al tre quattro sette, uno due tre, quattro cinque sei sette", "quattro cinque sei"),
    ("phone", "ru", "Мой номер: восемь девятьсот шестнадцать, сто двадцать три, сорок пять, шестьдесят семь.", "сто двадцать три"),
    ("phone", "zh", "我的电话是一三八零零一三八零零零", "一三八零零一三八零零零"),
    # e-mail addresses, plain and spelled out
    ("email", "en", "You can reach me at priya.raman@example.org any time.", "priya.raman@example.org"),
    ("email", "en", "My personal email is tom dot becker at gmail dot com.", "becker at gmail"),
    ("email", "en", "jane [at] example [dot] com", "jane [at] example"),
    ("email", "en", "jane(at)example(dot)com", "jane(at)example"),
    ("email", "en", "my email is jane at example.com", "jane at example.com"),
    ("email", "fr", "Mon adresse e-mail : julie.morel (at) orange (dot) fr", "julie.morel (at) orange"),
    ("email", "fr", "écris-moi : jane arobase exemple point fr", "jane arobase exemple"),
    ("email", "de", "Schreib mir an lena.schulz [at] web [dot] de.", "lena.schulz [at] web"),
    ("email", "es", "Mi correo es carlos_ruiz arroba hotmail punto com.", "carlos_ruiz arroba hotmail"),
    ("email", "it", "la mia mail è marco chiocciola libero punto it", "marco chiocciola libero"),
    # home and postal addresses
    ("address", "en", "I live at 221 Kensington Park Road, London W11 2ES.", "221 Kensington Park Road"),
    ("address", "en", "I live at 221 Kensington Park Road, London W11 2ES.", "W11 2ES"),
    ("address", "en", "Sherlock lived at 221B Baker Street", "221B Baker Street"),
    ("address", "en", "i live at 12 main street", "12 main street"),
    ("address", "fr", "J'habite au 12 rue des Lilas, 69003 Lyon.", "12 rue des Lilas"),
    ("address", "fr", "Lives at 42 rue de la Paix", "42 rue de la Paix"),
    ("address", "de", "Ich wohne in der Lindenstraße 45, 10969 Berlin.", "Lindenstraße 45"),
    ("address", "de", "wir wohnen Berliner Straße 12", "Berliner Straße 12"),
    ("address", "es", "Vivo en Calle de Alcalá 120, 3º B, 28009 Madrid.", "Calle de Alcalá 120"),
    ("address", "it", "Abito in Via Garibaldi 8, 20121 Milano.", "Via Garibaldi 8"),
    ("address", "pt", "Moro na Rua Augusta, 100 em Lisboa.", "Rua Augusta, 100"),
    ("address", "nl", "Ik woon op de Kalverstraat 12.", "Kalverstraat 12"),
    ("address", "ru", "Я живу на ул. Тверская, д. 7.", "Тверская, д. 7"),
    ("address", "zh", "我住在南京路123号。", "南京路123号"),
    ("address", "ja", "東京都港区1丁目2番3号に住んでいます。", "1丁目2番3号"),
    # door and entry codes
    ("door_code", "en", "My flat is 4B, 17 Elm Street, and the door code is 4821#.", "4821#"),
    ("door_code", "en", "the garage door keypad is 5-2-8-0-4 if the cleaner needs it", "5-2-8-0-4"),
    ("door_code", "fr", "le code de la porte est 1234B", "1234B"),
    ("door_code", "fr", "digicode : 58A41", "58A41"),
    ("door_code", "de", "Der Türcode ist 4711.", "4711"),
    ("door_code", "es", "el código del portal es 1234", "1234"),
    ("door_code", "it", "codice del portone 7734", "7734"),
    ("door_code", "pt", "o código da porta é 2580", "2580"),
    ("door_code", "nl", "de deurcode is 9631", "9631"),
    ("door_code", "ru", "код домофона 45К7890", "45К7890"),
    ("door_code", "zh", "门禁密码是1234", "1234"),
    ("door_code", "ja", "オートロックの暗証番号は8520です", "8520"),
    # dates of birth
    ("date_of_birth", "en", "I was born on 14 March 1987.", "14 March 1987"),
    ("date_of_birth", "en", "my birthday is 03/04/1990", "03/04/1990"),
    ("date_of_birth", "en", "My date of birth is 1990-07-23, for the insurance form.", "1990-07-23"),
    ("date_of_birth", "en", "born on the 4th of July", "4th of July"),
    ("date_of_birth", "fr", "Je suis née le 2 février 1985.", "2 février 1985"),
    ("date_of_birth", "de", "geboren am 12. März 1988", "12. März 1988"),
    ("date_of_birth", "de", "Mein Geburtsdatum ist der 09.11.1979.", "09.11.1979"),
    ("date_of_birth", "es", "nací el 3 de mayo de 1990", "3 de mayo de 1990"),
    ("date_of_birth", "it", "sono nata il 12 marzo 1988", "12 marzo 1988"),
    ("date_of_birth", "pt", "nasci em 5 de junho de 1992", "5 de junho de 1992"),
    ("date_of_birth", "nl", "ik ben geboren op 12 maart 1988", "12 maart 1988"),
    ("date_of_birth", "pl", "urodziłam się 7 listopada 1991", "7 listopada 1991"),
    ("date_of_birth", "ru", "Я родился 3 сентября 1990 года.", "3 сентября 1990"),
    ("date_of_birth", "zh", "我的生日是1988年3月12日", "1988年3月12日"),
    ("date_of_birth", "ja", "私の生年月日は1992年5月8日です。", "1992年5月8日"),
    ("date_of_birth", "ja", "1988年3月12日生まれです", "1988年3月12日"),
]  # fmt: skip

# Ordinary signal text, in the languages read: none of it may be flagged or changed.
NEGATIVES = [
    "Works 40 hours a week",
    "Has 3 kids",
    "Born in Ohio",
    "Born in 1988",
    "Moved to Lisbon in 2019",
    "Joined the team on 2021-03-01",
    "Started on 12 March 2019",
    "Uses Python 3.11.4 and Postgres 16.2",
    "Works on version 2.3.1-rc1 of the SDK",
    "Prefers British spelling",
    "Prefers answers under 200 words",
    "Takes the 7:45 train on Tuesdays",
    "Is on call every 2nd week",
    "Reads 3-4 books a month",
    "Works on the 5th floor",
    "Scored 1234567 points in the game",
    "Likes the number 1234567",
    "Has an iPhone 13",
    "Works at example.com",
    "Uses a password manager",
    "Prefers passkeys over passwords",
    "The password is too short",
    "The secret is to have a plan and stick to it",
    "My dad got a pet shepherd at some point in the past",
    "Ran 3 miles down the road",
    "Has 2 cats in the way of everything",
    "Birthday is in March",
    "Has a birthday party for 5-6 kids",
    "Lives on Baker Street",
    "Spring 2024 semester starts soon",
    "Goes via email 3 times a day",
    "Has one or two meetings, ten or twelve on a bad day",
    "Travaille 35 heures par semaine",
    "J'ai 2 cours de maths le lundi",
    "Ne travaille pas le 12 mars",
    "Arbeitet seit 2019 bei der Bahn",
    "Hat einen Arbeitsplatz 2 Tage die Woche im Büro",
    "Tiene 2 hijos y vive en Sevilla",
    "È nato a Milano",
    "Nasceu no Porto em 1990",
    "Woont sinds 2015 in Utrecht",
    "Mieszka w Krakowie od 2018 roku",
    "Живёт в Москве с 2010 года",
    "我在2019年加入了数据团队",
    "2019年からエンジニアです",
    "Is a staff data engineer on the payments team",
    "Prefers bullet lists over long paragraphs",
]


@pytest.mark.parametrize(
    ("kind", "language", "text", "value"),
    POSITIVES,
    ids=[f"{kind}-{language}-{i}" for i, (kind, language, _, _) in enumerate(POSITIVES)],
)
def test_each_kind_is_found_and_redacted_in_each_language(kind, language, text, value):
    assert kind in sensitive_kinds(text)
    redacted = redact(text)
    assert value not in redacted, redacted
    assert "redacted]" in redacted


@pytest.mark.parametrize("text", NEGATIVES)
def test_ordinary_signal_text_is_not_flagged(text):
    assert sensitive_kinds(text) == []
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My IBAN is GB82 WEST 1234 5698 7654 32.", "My IBAN is [iban redacted]."),
        (
            "mein Passwort lautet Bergsee2023, merk es dir",
            "mein Passwort lautet [password redacted], merk es dir",
        ),
        (
            "Mail jane [at] example [dot] com or call 020 7946 0958",
            "Mail [email redacted] or call [phone redacted]",
        ),
        ("I was born on 14 March 1987.", "I was born on [date_of_birth redacted]."),
        ("Works as a data engineer", "Works as a data engineer"),
    ],
)
def test_redact_replaces_each_finding_with_its_kind(text, expected):
    assert redact(text) == expected


def test_redacting_twice_changes_nothing_more():
    for _, _, text, _ in POSITIVES:
        once = redact(text)
        assert redact(once) == once
        assert sensitive_kinds(once) == [], once


def test_detect_secrets_reads_no_configuration_file_and_opens_no_socket(tmp_path):
    """In a fresh process whose working and home folder hold a detect-secrets baseline that enables no
    plugin, the screen still finds credentials: it opens no file there, no baseline anywhere, and no
    connection."""
    (tmp_path / ".secrets.baseline").write_text(json.dumps({"plugins_used": [], "filters_used": []}))
    script = textwrap.dedent(
        """
        import json, sys
        events = []
        sys.addaudithook(lambda event, args: events.append((event, str(args[0]) if args else "")))
        from agent_signals.core.screening.sensitive import sensitive_kinds
        kinds = sensitive_kinds("token: ghp_8fK2LmN4pQ7rS1tU9vW3xY6zA0bC5dE7gH2j, born on 14 March 1987, +44 20 7946 0958")
        print(json.dumps({"kinds": kinds, "events": events}))
        """
    )
    env = {**os.environ, "HOME": str(tmp_path), "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, check=True
    )
    result = json.loads(out.stdout.splitlines()[-1])
    assert {"api_key", "date_of_birth", "phone"} <= set(result["kinds"])
    opened = [path for event, path in result["events"] if event == "open"]
    assert not [p for p in opened if p.startswith(str(tmp_path)) or "baseline" in os.path.basename(p)]
    # (importing requests binds a socket to port 0 to learn whether IPv6 works: no traffic)
    reaching_out = (
        "socket.connect",
        "socket.getaddrinfo",
        "socket.gethostbyname",
        "socket.sendto",
        "urllib.Request",
    )
    assert not [e for e in result["events"] if e[0] in reaching_out]


def test_the_screen_keeps_its_own_detect_secrets_settings():
    """detect-secrets keeps its settings process-wide: should other code swap them (here: no plugin
    at all), the screen puts its own back before it scans."""
    from detect_secrets.settings import transient_settings

    with transient_settings({"plugins_used": []}):
        assert "api_key" in sensitive_kinds("key ghp_8fK2LmN4pQ7rS1tU9vW3xY6zA0bC5dE7gH2j")
