"""Words that announce personal data, in the languages the screen reads (English, French, German,
Spanish, Italian, Portuguese, Dutch, Polish, Russian, Chinese, Japanese). These are the phrases no library
lists: how people say "my password is", "my door code", "I was born on", how they spell an e-mail
address or read out digits. Month names come from babel (CLDR), street and ID formats from the
detectors of core/screening/sensitive/. Each table is a regular-expression alternation, matched case-insensitively.
"""

from __future__ import annotations

LANGUAGES = ("en", "fr", "de", "es", "it", "pt", "nl", "pl", "ru", "zh", "ja")

# A password, PIN or passphrase stated in words: "[owner] <trigger> [a few words] <connector> <value>",
# per language: (owners, triggers, connectors that are words). Marks (":", "=", "—") and the CJK
# particles (是, は) connect in every language.
STATED_PASSWORDS: dict[str, tuple[str, str, str]] = {
    "en": (
        r"my|our",
        r"pass(?:word|code|phrase)s?|pass phrase|pwd|pin(?:[ -]?(?:code|number))?|secret (?:code|word|phrase)"
        r"|security code|api[ _-]?key|auth[ _-]?token|access[ _-]?token|token",
        r"(?:is|was)(?: (?:still|now|currently|just|simply|set to))?",
    ),
    "fr": (
        r"mon|ma|notre",
        r"mot de passe|mdp|code (?:secret|pin|confidentiel)|phrase secr[eè]te",
        r"est|c['’]est|(?:est|c['’]est) toujours",
    ),
    "de": (
        r"mein|meine|unser|unsere",
        r"passwort|kennwort|geheimzahl|geheimnummer|pin(?:-?nummer)?|geheimwort|passphrase",
        r"ist|lautet|war",
    ),
    "es": (
        r"mi|nuestra|nuestro",
        r"contrase[nñ]a|clave(?: secreta| de acceso)?|c[oó]digo (?:pin|secreto)|pin|frase de (?:contrase[nñ]a|paso)",
        r"es|era",
    ),
    "it": (
        r"(?:il |la )?(?:mio|mia)",
        r"password|parola d['’]ordine|codice (?:pin|segreto)|pin|parola chiave|passphrase",
        r"è|e['’]|era",
    ),
    "pt": (
        r"(?:o |a )?(?:meu|minha)",
        r"senha|palavra[- ]passe|c[oó]digo (?:pin|secreto)|pin",
        r"é|era",
    ),
    "nl": (r"mijn|ons|onze", r"wachtwoord|pincode|wachtzin|toegangscode", r"is|luidt|was"),
    "pl": (r"moje|mój|moja|nasze", r"hasło|haslo|pin|kod pin", r"to|jest"),
    "ru": (r"мой|моя|мои|наш", r"пароль|пин-?код|пин|кодовое слово|секретный код", r"это"),
    "zh": (r"我的|我", r"密码|密碼|口令|通行码|PIN码", r"就是"),
    "ja": (r"私の|僕の|俺の", r"パスワード|暗証番号|パスフレーズ|合言葉", r"です"),
}
PASSWORD_MARK_CONNECTORS = r"[:=：—–]|是|为|為|は|が"
# Connectors that state a credential whoever it belongs to ("password: x", "Passwort lautet x").
STRONG_CONNECTORS = r"[:=：—–]|lautet|luidt|是|为|為|は|が|это"
# Triggers whose value is a phrase (several words), not one token.
PHRASE_TRIGGERS = r"pass ?phrase|secret phrase|phrase secr[eè]te|frase de (?:contrase[nñ]a|paso)|wachtzin|кодовое слово|パスフレーズ|合言葉"
# Articles that may sit between the connector and the value ("mi PIN es el 1234").
VALUE_ARTICLES = r"el|la|le|il|lo|o|a|the|de|het"

# A door, gate or building entry code: the trigger, a few words, then the code.
DOOR_CODE_TRIGGERS = "|".join(
    [
        # en
        r"(?:front |back |street |main )?(?:door|gate|entry|entrance|keypad|buzzer|intercom|alarm|lockbox|key ?safe|garage)[ -]?code",
        r"(?:lockbox|key ?safe|padlock|safe|locker)(?:\s+\S+){0,6}?\s+(?:opens|unlocks) with|(?:lock|safe|padlock) combination",
        r"access code",
        r"(?:(?:garage|front|back|gate|door|building|alarm) )*keypad(?=:| is | number| pin)",  # "the garage door keypad is 7-3-1-9-8"
        # fr
        r"digicode|code (?:de (?:la |l['’])?|d['’]|du )?(?:porte|portail|entr[ée]e|immeuble|interphone|acc[eè]s|b[aâ]timent)",
        # de
        r"(?:haus)?t[üu]r-?code|tor-?code|zugangscode|klingelcode|code (?:f[üu]r )?die (?:haus)?t[üu]r",
        # es
        r"c[oó]digo (?:de (?:la |el )?|del )?(?:puerta|portal|entrada|acceso|portero|port[oó]n)",
        # it
        r"codice (?:della |del |d['’]|di )?(?:porta|portone|ingresso|accesso|cancello|citofono)",
        # pt
        r"c[oó]digo (?:da |do |de )?(?:porta|port[aã]o|entrada|acesso|pr[eé]dio)",
        # nl
        r"deurcode|poortcode|toegangscode|code van de (?:deur|poort)",
        # pl
        r"kod (?:do |od )?(?:drzwi|domofonu|bramy|klatki)",
        # ru
        r"код (?:от )?(?:домофона|двери|подъезда|калитки|ворот)|код доступа",
        # zh
        r"门禁(?:卡)?(?:密码|码)|大门密码|门锁密码|门密码|單元門密碼",
        # ja
        r"(?:ドア|玄関|入口|オートロック|門)の?(?:暗証番号|コード|番号)",
    ]
)

# A national identification number announced by name: any ID-shaped value after it is one, even
# where no check digit can confirm it (passport numbers, a NINO written with an example prefix).
NATIONAL_ID_CUES = "|".join(
    [
        # en
        r"ssn|social security(?: number| no\.?)?|national insurance(?: number| no\.?)?|ni (?:number|no\.?)|nino",
        r"passport(?: number| no\.?)?|driver['’]?s? licen[cs]e(?: number| no\.?)?|id (?:card )?number|tax id|nhs number",
        # fr
        r"num[ée]ro de s[ée]curit[ée] sociale|n° de s[ée]cu|num[ée]ro fiscal|num[ée]ro de passeport|carte d['’]identit[ée]",
        # de
        r"personalausweis(?:nummer)?|ausweisnummer|reisepass(?:nummer)?|steuer-?id|steueridentifikationsnummer",
        r"sozialversicherungsnummer",
        # es
        r"(?-i:DNI|NIE)|pasaporte|n[úu]mero de (?:la )?seguridad social",
        # it
        r"codice fiscale|passaporto|carta d['’]identit[àa]",
        # pt
        r"cpf|nif|cart[ãa]o de cidad[ãa]o|passaporte|n[úu]mero de contribuinte",
        # nl
        r"bsn|burgerservicenummer|sofinummer|paspoortnummer",
        # ru
        r"снилс|инн|паспорт|номер паспорта",
        # zh
        r"身份证(?:号码?)?|身份證|护照(?:号码?)?",
        # ja
        r"マイナンバー|個人番号|パスポート番号",
    ]
)

# A date of birth: a trigger, then a date within the same clause (or the date then 生まれ / 出生).
BIRTH_TRIGGERS = "|".join(
    [
        # en
        r"born(?: on)?|birth ?day(?: is)?|date of birth|birth ?date|d\.?o\.?b\.?",
        # fr
        r"née?(?: le)?|date de naissance|anniversaire",  # "né" with its accent: "ne" is a negation
        # de
        r"geboren(?: am)?|geb\.|geburtstag|geburtsdatum",
        # es
        r"nac[íi](?: el)?|nacid[oa](?: el)?|cumplea[ñn]os|fecha de nacimiento",
        # it
        r"nat[oa](?: il)?|compleanno|data di nascita",
        # pt
        r"nasci(?: em| no dia| a)?|nascid[oa](?: em| no dia| a)?|anivers[aá]rio|data de nascimento",
        # nl
        r"geboren(?: op)?|verjaardag|geboortedatum|jarig(?: op)?",
        # pl
        r"urodzi(?:ł|ła)(?:em|am)?(?: się)?|urodziny|data urodzenia",
        # ru
        r"родил(?:ся|ась)|рожд[её]н(?:а)?|день рождения|дата рождения",
        # zh
        r"生日|出生(?:日期|于|於|在)?",
        # ja
        r"誕生日|生年月日",
    ]
)
BIRTH_AFTER = r"生まれ|出生|生"  # "1988年3月12日生まれ"

# An e-mail address spelled out: "jane at example dot com", "jane [at] example (dot) com".
# Each spelled "at" with the spelled "dot" of the same language ("at some point in the past" is not
# an address: English says "at ... dot").
EMAIL_SPELLINGS: dict[str, tuple[str, ...]] = {
    "at": ("dot", "punkt", "punt"),  # en, de, nl
    "arobase": ("point",),  # fr
    "arroba": ("punto", "ponto"),  # es, pt
    "chiocciola": ("punto",),  # it
    "klammeraffe": ("punkt",),  # de
    "apenstaartje": ("punt",),  # nl
    "собака": ("точка",),  # ru
    "艾特": ("点",),  # zh
    "アットマーク": ("ドット",),  # ja
}
EMAIL_AT_WORDS = "|".join(EMAIL_SPELLINGS)
EMAIL_DOT_WORDS = "|".join(dict.fromkeys(d for dots in EMAIL_SPELLINGS.values() for d in dots))
EMAIL_CUES = (
    r"e-?mail|mail|courriel|correo|posta|contact|reach me|write to me|écris-moi|schreib mir|почта|邮箱|メール"
)

# Numbers read out: "five five five, one two three four", "zéro six, douze, trente-quatre",
# "восемь девятьсот шестнадцать". Each word with the place of its highest digit (0 a unit, 1 a ten or
# a teen, 2 a hundred): a phone number is counted in digits, whatever groups it is read in. text2num
# converts such words for seven of these languages but rewrites the text without offsets; nothing
# covers Russian or Polish.
_UNITS = """
    zero oh o one two three four five six seven eight nine
    zéro un une deux trois quatre cinq six sept huit neuf
    null eins ein zwei zwo drei vier fünf sechs sieben acht neun
    cero uno una dos tres cuatro cinco seis siete ocho nueve
    due tre quattro cinque sei sette otto nove
    um uma dois duas três meia sete oito
    nul een één twee drie vijf zes zeven negen
    jeden jedna dwa dwie trzy cztery pięć sześć siedem osiem dziewięć
    ноль нуль один одна два две три четыре пять шесть семь восемь девять
"""
_TENS = """
    ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen
    twenty thirty forty fifty sixty seventy eighty ninety
    dix onze douze treize quatorze quinze seize vingt vingts trente quarante cinquante soixante
    zehn elf zwölf dreizehn vierzehn fünfzehn sechzehn siebzehn achtzehn neunzehn
    zwanzig dreißig dreissig vierzig fünfzig sechzig siebzig achtzig neunzig
    diez once doce trece catorce quince dieciséis diecisiete dieciocho diecinueve
    veinte veinti treinta cuarenta cincuenta sesenta setenta ochenta noventa
    dieci undici dodici tredici quattordici quindici sedici diciassette diciotto diciannove
    venti vent trenta trent quaranta quarant cinquanta cinquant sessanta sessant settanta settant
    ottanta ottant novanta novant
    dez treze catorze quatorze dezesseis dezasseis dezessete dezassete dezoito dezenove dezanove
    vinte trinta quarenta sessenta oitenta
    tien twaalf dertien veertien vijftien zestien zeventien achttien negentien
    twintig dertig veertig vijftig zestig zeventig tachtig negentig
    dziesięć jedenaście dwanaście trzynaście czternaście piętnaście szesnaście siedemnaście
    osiemnaście dziewiętnaście dwadzieścia trzydzieści czterdzieści pięćdziesiąt sześćdziesiąt
    siedemdziesiąt osiemdziesiąt dziewięćdziesiąt
    десять одиннадцать двенадцать тринадцать четырнадцать пятнадцать шестнадцать семнадцать
    восемнадцать девятнадцать двадцать тридцать сорок пятьдесят шестьдесят семьдесят
    восемьдесят девяносто
"""
_HUNDREDS = """
    hundred cent cents hundert cien ciento doscientos trescientos cuatrocientos quinientos
    seiscientos setecientos ochocientos novecientos cento duecento trecento quattrocento
    cinquecento seicento settecento ottocento novecento cem duzentos trezentos quatrocentos
    quinhentos seiscentos oitocentos honderd sto dwieście trzysta czterysta pięćset sześćset
    siedemset osiemset dziewięćset сто двести триста четыреста пятьсот шестьсот семьсот
    восемьсот девятьсот
"""
NUMBER_WORDS: dict[str, int] = {
    **dict.fromkeys(_HUNDREDS.split(), 2),
    **dict.fromkeys(_TENS.split(), 1),
    **dict.fromkeys(_UNITS.split(), 0),
}
# Words that join the parts of one number ("vingt et un", "treinta y cuatro", "dreiundzwanzig").
NUMBER_JOINERS = ("and", "et", "und", "y", "e", "en", "ën", "i", "и")
# Words that repeat the next digit: "double five", "triple zero".
DIGIT_REPEATS = {"double": 2, "triple": 3, "doble": 2, "doppio": 2, "dubbel": 2, "doppel": 2}
# Words that announce a phone number ("my mobile is ...", "Handynummer", "手机号").
PHONE_CUES = "|".join(
    [
        r"phone|telephone|tel|mobile|cell(?:phone)?|number|call me|text me|whatsapp|reach me",  # en
        r"num[ée]ro|portable|t[ée]l[ée]phone|appelle-moi",  # fr
        r"handy(?:nummer)?|telefon(?:nummer)?|rufnummer|nummer|ruf mich an",  # de
        r"m[óo]vil|tel[ée]fono|n[úu]mero|celular|ll[áa]mame",  # es
        r"cellulare|telefono|numero",  # it
        r"telem[óo]vel|telefone|n[úu]mero",  # pt
        r"mobiel|telefoon|nummer|bel me",  # nl
        r"telefon|numer|komórk[ai]",  # pl
        r"телефон|номер|мобильный|позвони",  # ru
        r"电话|手机|號碼|号码|電話",  # zh
        r"電話番号|携帯|番号",  # ja
    ]
)
# Chinese and Japanese digits written as characters, one per digit in a phone number (幺 is 1).
CJK_DIGITS = "零〇一二三四五六七八九幺两"

# A street address: a street word with a house number, in the order each language writes it.
# English: "221B Baker Street" (number, capitalised name, street word), the street word last.
STREET_SUFFIXES_EN = (
    r"Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Drive|Dr|Boulevard|Blvd|Court|Ct|Terrace|Crescent|Close"
    r"|Gardens|Mews|Parkway|Pkwy|Highway|Hwy|Place|Pl|Square|Sq|Way|Row|Grove"
)
# French: "42 rue de la Paix" (number, street word, name).
STREET_WORDS_NUMBER_FIRST = r"rue|avenue|av\.|boulevard|bd|bld|all[ée]e|impasse|chemin|quai|faubourg"
# ... and the French street words that are also common nouns ("2 cours de maths"): a name must follow.
STREET_WORDS_NUMBER_FIRST_NAMED = r"place|cours|route|square|passage"
# Spanish, Italian, Portuguese, Russian: "Calle Mayor 3", "Via Roma 10", "Rua Augusta 100",
# "улица Ленина, д. 5" (street word, name, number).
STREET_WORDS_NUMBER_LAST = "|".join(
    [
        r"calle|c/|avenida|avda\.?|plaza|paseo|camino|carretera|ronda|traves[ií]a",  # es
        r"via|viale|piazza|piazzale|corso|vicolo|largo|strada",  # it
        r"rua|travessa|pra[çc]a|estrada|alameda|largo|avenida",  # pt
        r"улица|ул\.|проспект|пр-т|просп\.|переулок|пер\.|бульвар|б-р|шоссе|площадь|пл\.|набережная|наб\.",  # ru
    ]
)
# German and Dutch write the street word as the end of one compound: "Hauptstraße 5", "Kalverstraat 12";
# also as a separate word after an adjective: "Berliner Straße 5".
# "-platz" and "-weg" end too many common nouns ("Arbeitsplatz 2 Tage"): they count only as words.
STREET_WORDS_AFTER_ADJECTIVE = r"Stra(?:ß|ss)e|Str\.|Weg|Allee|Platz|Gasse|Damm|Ufer|Straat|Laan"
STREET_SUFFIXES_COMPOUND = (
    r"stra(?:ß|ss)e|str\.|gasse|allee|damm|ufer|straat|laan|gracht|plein|kade|singel|steeg"
)
# Chinese and Japanese: "南京路123号", "1丁目2番3号".
CJK_STREET = r"路|街|大道|巷|弄|胡同"
