"""Words that announce a secret or an identifier, in over thirty languages and their scripts: the word
for "password", "PIN", "passcode", "Wi-Fi key" or "code", for "passport", for an identity number, for
being born. No library lists them (CLDR has month and territory names, not these), so they are here, as
regular-expression alternations matched case-insensitively, each with the forms people write (a
Turkish or Finnish suffix, a Hebrew or Arabic prefix, the unaccented spelling).

`cue(words)` compiles a table: a word of a spaced script must stand alone (not inside a longer word);
a word of a script written without spaces, or that takes particles (Korean, Thai, Chinese, Japanese),
may touch its neighbours.
"""

from __future__ import annotations

import re

# Scripts that write words without spaces or glue particles to them: a cue of these scripts needs no edge.
_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def cue(table: dict[str, str]) -> re.Pattern[str]:
    spaced, unspaced = [], []
    for alternation in table.values():
        for word in alternation.split("|"):
            (unspaced if _UNSPACED.match(word) else spaced).append(word)
    parts = []
    if spaced:
        parts.append(rf"(?<!\w)(?:{'|'.join(spaced)})(?!\w)")
    if unspaced:
        parts.append(rf"(?:{'|'.join(unspaced)})")
    return re.compile("|".join(parts), re.I)


# The word for a password, PIN, passcode, Wi-Fi key or secret code. A bare "code" is a weak cue (source
# code, postal code): its value must follow a mark ("kod: 4821"), see passwords.py.
PASSWORD_WORDS = {
    "en": r"pass(?:word|code|phrase)s?|pwd|pin(?: ?code| number)?|wi-?fi (?:key|code)|network key|security code"
    r"|safe|combination|padlock",
    "fr": r"mot de passe|mdp|code (?:pin|secret|wifi|wi-fi)|cl[ée] (?:wifi|wi-fi|wpa)",
    "de": r"passwort|kennwort|pin(?:-?nummer|-?code)?|geheimzahl|wlan-?(?:passwort|schl[üu]ssel|key)|tresor(?:code)?",
    "es": r"contrase[ñn]a|clave(?: wifi| del wifi)?|c[óo]digo pin|pin",
    "it": r"password|codice pin|pin|chiave (?:wifi|wi-fi)",
    "pt": r"senha|palavra-passe|c[óo]digo pin|pin",
    "nl": r"wachtwoord|pincode|pin|wifi-?(?:code|sleutel)",
    "ru": r"пароль|паролем|пин-?код|пин|код доступа",
    "uk": r"пароль|паролем|пін-?код|пін|код доступу|ключ wi-?fi|код від (?:домофону|дверей|під['’]їзду|сейфу)",
    "pl": r"has[łl]o|has[łl]a|has[łl]em|kod pin|pin|kod dost[ęe]pu|klucz (?:wifi|wi-fi|sieci)",
    "cs": r"heslo|hesla|heslem|pin|pin k[óo]d|p[řr][íi]stupov[ýy] k[óo]d|k[óo]d (?:ke dve[řr][íi]m|od domu|od trezoru)",
    "sk": r"heslo|hesla|pin",
    "ro": r"parol[aăe]|parola mea|codul pin|cod pin",
    "hu": r"jelsz[óo]|jelszav\w{1,4}|pin-?k[óo]d\w{0,3}|kapuk[óo]d\w{0,3}|ajt[óo]k[óo]d\w{0,3}",
    "el": r"κωδικ[όο][ςσ]?|κωδικ[οό]ς πρόσβασης|συνθηματικ[όο]|pin|κλειδ[ίι] wi-?fi|κωδικ[οό] της πόρτας",
    "tr": r"[şs]ifre\w{0,4}|parola\w{0,4}|pin kod\w{0,3}|eri[şs]im kod\w{0,3}|kap[ıi] kod\w{0,3}",
    "sv": r"l[öo]senord\w{0,3}|pinkod\w{0,2}|pin-kod\w{0,2}|n[äa]tverksnyckel\w{0,2}|portkod\w{0,2}|d[öo]rrkod\w{0,2}",
    "da": r"adgangskode\w{0,2}|kodeord\w{0,3}|pinkode\w{0,2}|d[øo]rkode\w{0,2}|portkode\w{0,2}",
    "no": r"passord\w{0,3}|pinkode\w{0,2}|d[øo]rkode\w{0,2}|portkode\w{0,2}",
    "fi": r"salasana\w{0,4}|pin-?koodi\w{0,3}|tunnusluku\w{0,3}|ovikoodi\w{0,3}",
    "et": r"parool\w{0,2}|salas[õo]na",
    "lt": r"slapta[žz]odis|slapta[žz]od[žz]io",
    "lv": r"parole|paroli",
    "hr": r"lozink[aeu]|[šs]ifr[aeu]",
    "sl": r"geslo|gesla",
    "bg": r"парола(?:та)?|пин код",
    "ca": r"contrasenya",
    "vi": r"m[ậa]t kh[ẩa]u|m[ãa] pin|m[ãa] b[íi] m[ậa]t|pass wifi|m[ãa] (?:c[ửu]a|c[ổo]ng|k[ée]t)",
    "id": r"kata sandi|sandi|kata kunci|kode pin|pass wifi|kode (?:pintu|gerbang|brankas|akses)",
    "ms": r"kata laluan|kata kunci|nombor pin|kod (?:pintu|pagar|akses)",
    "tl": r"password ko|pin ko",
    "hi": r"पासवर्ड|पिन(?: कोड)?|कूटशब्द|गुप्त कोड|पासकोड|दरवाज़े का कोड|दरवाजे का कोड",
    "hi-Latn": r"paswrd|passwrd|pasword",
    "ar": r"[وب]?(?:ال)?كلمة (?:ال)?(?:سر|مرور)\w{0,2}|[وب]?(?:ال)?رقم (?:ال)?سري|باسورد|(?:ال)?باسوورد|رمز (?:ال)?(?:مرور|دخول|pin|باب|واي ?فاي)|كود (?:ال)?(?:باب|واي ?فاي)",
    "fa": r"رمز عبور|گذرواژه|پسورد",
    "he": r"[והשב]?(?:ה)?סיסמ[האת]\w{0,2}|קוד (?:ה)?(?:סודי|גישה|כניסה|דלת|כספת)|[וה]?קוד pin",
    "ko": r"비밀번호|비번|패스워드|암호|핀번호|핀 번호|와이파이 비번|도어락 번호|현관 번호",
    "th": r"รหัสผ่าน|รหัส pin|รหัสไวไฟ|รหัสวายฟาย|พาสเวิร์ด|รหัสประตู|รหัส",
    "zh": r"密码|密碼|口令|wifi密码",
    "ja": r"パスワード|暗証番号|パスコード",
}
# A bare word for "code": a weak cue, whose value must follow a mark or a copula.
CODE_WORDS = {
    "en": r"code",
    "fr": r"code",
    "de": r"code",
    "es": r"c[óo]digo",
    "it": r"codice",
    "pt": r"c[óo]digo",
    "pl": r"kod",
    "ru": r"код",
    "uk": r"код",
    "tr": r"kod\w{0,3}",
    "sv": r"kod(?:en)?",
    "da": r"kode(?:n)?",
    "no": r"kode(?:n)?",
    "nl": r"code",
    "cs": r"k[óo]d",
    "fi": r"koodi\w{0,2}",
    "ro": r"cod(?:ul)?",
    "hu": r"k[óo]d\w{0,3}",
    "vi": r"m[ãa]",
    "id": r"kode",
    "ms": r"kod",
    "hi": r"कोड",
    "ar": r"(?:ال)?كود|(?:ال)?رمز",
    "he": r"[וה]?קוד",
    "ko": r"코드",
    "th": r"โค้ด",
}

# The word for a passport: a letter-and-digit number near it is its number.
PASSPORT_WORDS = {
    "en": r"passports?|(?:travel )?document (?:number|no\.?)",
    "fr": r"passeports?|num[ée]ro (?:du |de )?document",
    "de": r"reisepass\w{0,3}|passnummer|pass-?nr\.?|dokumentennummer",
    "es": r"pasaportes?|n[úu]mero (?:del |de )?documento",
    "it": r"passaport[oi]|numero (?:del )?documento",
    "pt": r"passaportes?|n[úu]mero do documento",
    "nl": r"paspoort\w{0,6}",
    "pl": r"paszport\w{0,3}",
    "ru": r"паспорт\w{0,3}|загранпаспорт\w{0,3}|номер документа",
    "uk": r"паспорт\w{0,3}|закордонн\w{1,3} паспорт\w{0,3}",
    "cs": r"pas(?:u|em)?|cestovn[íi] pas\w{0,2}",
    "ro": r"pa[șs]aport\w{0,4}",
    "hu": r"[úu]tlev[ée]l\w{0,4}",
    "el": r"διαβατ[ήη]ρι\w{1,3}",
    "tr": r"pasaport\w{0,4}",
    "sv": r"pass(?:et|nummer)?",
    "da": r"pas(?:set|nummer)",
    "no": r"pass(?:et|nummer)",
    "fi": r"passi\w{0,4}",
    "vi": r"h[ộo] chi[ếe]u",
    "id": r"paspor",
    "ms": r"pasport",
    "tl": r"pasaporte",
    "hi": r"पासपोर्ट",
    "ar": r"[وب]?(?:ال)?جواز(?: (?:ال)?سفر\w{0,2})?|باسبور",
    "fa": r"گذرنامه|پاسپورت",
    "he": r"[והשב]?(?:ה)?דרכון\w{0,2}",
    "ko": r"여권",
    "th": r"หนังสือเดินทาง|พาสปอร์ต",
    "zh": r"护照|護照",
    "ja": r"パスポート|旅券",
}

# A word that calls a number an identity, tax or social-security number: a short all-digit number near
# it counts as one when a python-stdnum module of the catalogue validates it.
ID_WORDS = {
    "en": r"id(?: card)?(?: number| no\.?)?|identity (?:card|number)|ssn|social insurance(?: number)?|tax (?:id|number)|national id",
    "fr": r"num[ée]ro (?:d['’]identit[ée]|fiscal|d['’]assurance sociale)|carte d['’]identit[ée]",
    "de": r"ausweis\w{0,8}|steuer-?id|identifikationsnummer",
    "es": r"dni|nie|c[ée]dula|curp|documento de identidad",
    "it": r"codice fiscale|carta d['’]identit[àa]",
    "pt": r"cpf|nif|bilhete de identidade|cart[ãa]o de cidad[ãa]o",
    "nl": r"bsn|burgerservicenummer",
    "pl": r"pesel|nip|dow[óo]d(?: osobisty)?|numer dowodu",
    "ru": r"снилс|инн|удостоверени\w+",
    "uk": r"іпн|рнокпп|посвідчення",
    "cs": r"rodn[ée] [čc][íi]slo|r[čc]|ob[čc]ansk[ýy]",
    "ro": r"cnp|buletin",
    "hu": r"szem[ée]lyi sz[áa]m|taj(?:-sz[áa]m)?|ad[óo]azonos[íi]t[óo]",
    "el": r"αμκα|αφμ|ταυτότητ\w{1,3}|amka|afm",
    "tr": r"tc(?: kimlik)?|t\.c\.|kimlik\w{0,6}",
    "sv": r"personnummer|samordningsnummer",
    "da": r"cpr(?:-?nummer)?",
    "no": r"f[øo]dselsnummer",
    "fi": r"henkil[öo]tunnus|hetu",
    "vi": r"cccd|cmnd|c[ăa]n c[ưu][ớo]c",
    "id": r"nik|ktp|npwp",
    "ms": r"mykad|no\.? ic|kad pengenalan",
    "tl": r"philhealth|sss|umid",
    "in": r"aadhaar|aadhar|pan(?: card| number| no\.?)|आधार|पैन",
    "ar": r"[وب]?(?:ال)?هوية|(?:ال)?رقم (?:ال)?(?:قومي|وطني|مدني)|بطاقة",
    "he": r"ת\.?ז\.?|תעודת זהות|מספר זהות",
    "ko": r"주민(?:등록)?번호|주민번호",
    "th": r"เลขประจำตัวประชาชน|บัตรประชาชน|เลขบัตร",
    "zh": r"身份证|身份證",
    "ja": r"マイナンバー|個人番号",
}

# Being born, a birthday, a date of birth.
BIRTH_WORDS = {
    "en": r"born|birth ?day|date of birth|birth ?date|d\.?o\.?b\.?",
    "fr": r"n[ée]e?|date de naissance|anniversaire",
    "de": r"geboren|geb\.|geburtstag|geburtsdatum",
    "es": r"nac[íi]|nacid[oa]|cumplea[ñn]os|fecha de nacimiento",
    "it": r"nat[oa]|compleanno|data di nascita",
    "pt": r"nasci(?:d[oa])?|anivers[áa]rio|data de nascimento",
    "nl": r"geboren|verjaardag|geboortedatum|jarig",
    "pl": r"urodzi\w{1,6}|urodziny|data urodzenia",
    "ru": r"родил(?:ся|ась)|рожд[её]н\w{0,2}|день рождения|дата рождения",
    "uk": r"народил\w{1,4}|народжен\w{1,3}|день народження|дата народження",
    "cs": r"narodil\w{0,3}|narozen\w{0,3}|datum narozen[íi]|narozeniny",
    "sk": r"narodil\w{0,3}|d[áa]tum narodenia",
    "ro": r"n[ăa]scut\w{0,2}|data na[șs]terii|ziua mea",
    "hu": r"sz[üu]lett\w{0,4}|sz[üu]linap\w{0,4}|sz[üu]let[ée]si d[áa]tum",
    "el": r"γεννήθηκα|γεννημέν\w{1,2}|ημερομηνία γέννησης|γενέθλια",
    "tr": r"do[ğg]dum|do[ğg]du|do[ğg]um(?: tarihi\w{0,2}| g[üu]n[üu]\w{0,2})|do[ğg]umlu",
    "sv": r"f[öo]dd|f[öo]delsedag|f[öo]delsedatum",
    "da": r"f[øo]dt|f[øo]dselsdag|f[øo]dselsdato",
    "no": r"f[øo]dt|f[øo]dselsdag|f[øo]dselsdato",
    "fi": r"syntynyt|synnyin|syntym[äa]p[äa]iv[äa]\w{0,3}|syntym[äa]aika",
    "vi": r"sinh ng[àa]y|ng[àa]y sinh|sinh v[àa]o|sinh n[ăa]m",
    "id": r"lahir|tanggal lahir|ulang tahun",
    "ms": r"lahir|tarikh lahir|hari jadi",
    "tl": r"ipinanganak|kaarawan|kapanganakan",
    "hi": r"जन्म(?:दिन|तिथि| तिथि| तारीख|दिवस)?|पैदा",
    "hi-Latn": r"janam(?:din)?|paida|janmdin",
    "ar": r"[وف]?وُ?لدت|مواليد|(?:تاريخ|عيد|يوم) (?:ال)?ميلاد\w{0,2}|مولود\w{0,2}",
    "fa": r"متولد|تاریخ تولد|تولدم",
    "he": r"[וש]?נולד(?:תי|ה)?|יום ה?הולדת\w{0,2}|תאריך (?:ה)?לידה",
    "ko": r"태어났|태어난|생년월일|생일|출생",
    "th": r"เกิดวันที่|เกิด|วันเกิด",
    "zh": r"生日|出生",
    "ja": r"誕生日|生年月日|生まれ",
}

# What announces one's own address: "my address is", "home address:", "I live at", "lives at". A value
# with a house number or a postal code may follow it directly or after a copula or a colon
# (stated_address.py). Cues that say where one lives ("vivo en", "bor på") need that number too.
ADDRESS_WORDS = {
    "en": r"(?:my|our|home|house|delivery|shipping|postal|mailing|billing|residential|permanent|current|street)"
    r" address(?:es)?|(?:i|we|they|he|she) (?:now |currently |still )?live at|lives? at|living at"
    r"|resid(?:e|es|ing) at|home is at",
    "fr": r"(?:mon|notre|ma nouvelle|mon nouvel) adresse|adresse (?:postale|de livraison|du domicile|perso(?:nnelle)?)"
    r"|j['’]habite(?: au| à| a)?|habite au|je vis (?:au|à|a)|domicili[ée]e? (?:au|à|a)",
    "de": r"meine (?:neue )?(?:adresse|anschrift)|unsere (?:neue )?(?:adresse|anschrift)"
    r"|(?:liefer|post|wohn|privat|heim|rechnungs|versand)adresse|anschrift|ich wohne(?: in der| im| am| an der)?"
    r"|wohnhaft(?: in der| im| am)?",
    "es": r"mi (?:nueva )?direcci[óo]n|nuestra direcci[óo]n|direcci[óo]n de (?:env[íi]o|entrega|casa)|mi domicilio"
    r"|vivo en|vive en",
    "it": r"(?:il )?mio (?:nuovo )?indirizzo|indirizzo di (?:casa|spedizione|consegna|residenza)"
    r"|abito (?:in|a|al|alla)|vivo (?:in|a|al|alla)|risiedo (?:in|a|al)",
    "pt": r"meu (?:novo )?endere[çc]o|minha morada|endere[çc]o (?:de entrega|residencial|de casa)"
    r"|moro (?:na|no|em)|vivo (?:na|no|em)|resido (?:na|no|em)",
    "nl": r"(?:mijn|ons) (?:nieuwe? )?adres|woonadres|postadres|afleveradres|(?:ik )?woon (?:op|aan)|woont (?:op|aan)",
    "pl": r"m[óo]j (?:nowy )?adres|adres (?:do (?:faktury|wysy[łl]ki|korespondencji|dostawy)|zamieszkania)"
    r"|mieszkam (?:na|przy)",
    "ru": r"мой (?:новый )?адрес|наш (?:новый )?адрес|домашний адрес|адрес доставки|живу (?:на|по адресу)"
    r"|проживаю (?:на|по адресу)|по адресу",
    "uk": r"моя (?:нова )?адреса|наша адреса|домашня адреса|адреса доставки|живу (?:на|за адресою)"
    r"|мешкаю (?:на|за адресою)|за адресою",
    "el": r"(?:η )?δι[εέ][υύ]θυνσ[ηή] μου|(?:η )?δι[εέ][υύ]θυνσ[ηή] (?:κατοικίας|κατοικιας|του σπιτιού|παράδοσης)"
    r"|μ[εέ]νω (?:στην|στη|στο|στον)|κατοικ[ώω] (?:στην|στη|στο|στον)",
    "tr": r"adresim(?:iz)?|ev adresi\w{0,2}|teslimat adresi\w{0,2}|ikamet adresi\w{0,2}",
    "sv": r"min (?:nya )?adress|v[åa]r (?:nya )?adress|hemadress(?:en)?|leveransadress(?:en)?|(?:jag )?bor p[åa]",
    "da": r"min (?:nye )?adresse|vores (?:nye )?adresse|hjemmeadresse(?:n)?|leveringsadresse(?:n)?|(?:jeg )?bor p[åa]",
    "no": r"min (?:nye )?adresse|v[åa]r (?:nye )?adresse|hjemmeadresse(?:n)?|leveringsadresse(?:n)?|(?:jeg )?bor p[åa]",
    "fi": r"osoitteeni|kotiosoite\w{0,3}|toimitusosoite\w{0,3}|asun osoitteessa|osoitteessa",
    "cs": r"moje (?:nov[áa] )?adresa|adresa (?:bydli[šs]t[ěe]|trval[ée]ho pobytu)|doru[čc]ovac[íi] adresa"
    r"|bydl[íi]m (?:na|v|ve)",
    "hu": r"(?:a )?c[íi]mem|lakc[íi]m\w{0,3}|sz[áa]ll[íi]t[áa]si c[íi]m\w{0,3}|lak[óo]c[íi]m\w{0,3}",
    "ro": r"adresa mea|adresa (?:de livrare|de domiciliu|de acas[ăa])|locuiesc (?:pe|[îi]n|la)|domiciliul meu",
    "vi": r"[đd][ịi]a ch[ỉi] (?:nh[àa]|c[ủu]a) (?:t[ôo]i|m[ìi]nh|em|anh|ch[ịi])|[đd][ịi]a ch[ỉi] nh[àa]"
    r"|nh[àa] (?:t[ôo]i|m[ìi]nh|em) [ởo]|(?:t[ôo]i|m[ìi]nh|em) (?:s[ốo]ng|[ởo]) (?:[ởo]|t[ạa]i)",
    "id": r"alamat(?:ku| saya| kami| rumah(?: saya|ku)?| pengiriman)|(?:saya |aku )?tinggal di",
    "ms": r"alamat (?:saya|rumah|kediaman|penghantaran)|(?:saya )?tinggal di",
    "tl": r"(?:ang )?address ko|(?:ang )?tirahan ko|nakatira (?:ako )?sa",
    "th": r"ที่อยู่(?:ของ(?:ฉัน|ผม|เรา|หนู|ดิฉัน))?|บ้าน(?:ฉัน|ผม|เรา)อยู่(?:ที่)?|อาศัยอยู่ที่",
    "he": r"הכתובת (?:שלי|שלנו|החדשה שלי)|כתובתי|כתובת (?:ה)?מגורים|(?:אני )?גר(?:ה|ים)?",
    "ar": r"عنواني|عنوان (?:منزلي|بيتي|البيت|السكن|المنزل)|[أا]سكن (?:في|ب)|ساكن (?:في|ب)|[أا]عيش في",
    "fa": r"آدرس(?:م| من| خانه| منزل)|نشانی(?: من|‌ام)|ساکن",
    "hi": r"(?:मेरा|हमारा) (?:नया )?पता|(?:घर|मकान) का पता|पता नोट कर(?: लो| लीजिए| लें)?",
    "hi-Latn": r"(?:mera|meraa|hamara|ghar ka|ghar ki|home ka) (?:naya )?(?:address|addres|pata)",
    "ko": r"(?:우리 ?)?집 ?주소|주소",
    "ja": r"住所|自宅の住所|私の住所",
    "zh": r"我家地址|我的地址|家庭地址|收货地址|地址|住址|我住在|家住",
}
# The bare word for "address": its value must follow a copula or a colon ("Address is ...", "adresse :").
ADDRESS_LABEL_WORDS = {
    "en": r"address",
    "fr": r"adresse",
    "de": r"adresse",
    "es": r"direcci[óo]n|domicilio",
    "it": r"indirizzo",
    "pt": r"endere[çc]o|morada",
    "nl": r"adres",
    "pl": r"adres",
    "ru": r"адрес",
    "uk": r"адреса",
    "el": r"δι[εέ][υύ]θυνση",
    "tr": r"adres(?:i)?",
    "sv": r"adress(?:en)?",
    "da": r"adresse(?:n)?",
    "no": r"adresse(?:n)?",
    "fi": r"osoite",
    "cs": r"adresa",
    "hu": r"c[íi]m",
    "ro": r"adresa|adres[ăa]",
    "vi": r"[đd][ịi]a ch[ỉi]",
    "id": r"alamat",
    "tl": r"tirahan",
    "he": r"(?:ה)?כתובת",
    "ar": r"(?:ال)?عنوان",
    "fa": r"آدرس|نشانی",
}
