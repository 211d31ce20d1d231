"""Street-type words in over twenty-five languages and their scripts, by where each language puts the
house number (streets.py). No library lists them with their abbreviations (libpostal does, as a C
library with a 2 GB model: too much for a screen that runs on every message). Regular-expression
alternations, matched case-insensitively; a Latin, Greek or Cyrillic street name must be capitalised.
"""

from __future__ import annotations

# The street word, then the name, then the number: "Calle Mayor 3", "ul. Długa 5", "вул. Хрещатик, 22",
# "οδός Ερμού 25", "Jl. Sudirman No. 5", "רחוב הרצל 12", "شارع التحرير 12", "ถนนสุขุมวิท 123".
WORD_FIRST = "|".join(
    [
        r"calle|c/|avenida|avda\.?|av\.|paseo|plaza|camino|carretera|ronda|traves[íi]a",  # es
        r"via|viale|piazza|piazzale|corso|vicolo|largo|strada",  # it
        r"rua|travessa|pra[çc]a|estrada|alameda",  # pt
        r"strada|str\.|bulevardul|bd\.|calea|aleea|[șş]oseaua|soseaua|splaiul|pia[țţ]a",  # ro
        r"ulica|ul\.|aleja|al\.|plac|pl\.|osiedle|os\.",  # pl
        r"ulice|ulici|ul\.|n[áa]m[ěe]st[íi]|n[áa]m\.|t[řr][íi]da|n[áa]b[řr]e[žz][íi]",  # cs, sk
        r"улица|улице|улицу|ул\.|проспект|проспекте|пр-т|просп\.|переулок|пер\.|бульвар|б-р|шоссе|площадь|пл\.|набережная|наб\.",  # ru
        r"вулиця|вулиці|вулицю|вул\.|проспект|просп\.|провулок|пров\.|бульвар|бульв\.|площа|набережна",  # uk
        r"булевард|бул\.",  # bg
        r"οδός|οδό|οδού|οδ\.|λεωφόρος|λεωφόρο|λεωφόρου|λεωφ\.|πλατεία|πλατεία[ς]",  # el
        r"jalan|jln\.?|jl\.|gang|gg\.|lorong|lrg\.|persiaran|lebuh|komplek|perumahan",  # id, ms
        r"kalye|purok",  # tl
        r"đường|phố|ngõ|ngách|hẻm|đại lộ",  # vi
        r"ถนน|ซอย|ถ\.|ซ\.",  # th
        r"[בול]?רחוב|[בול]?רח['׳]|[בול]?שדרות|[בול]?שד['׳]|[בול]?סמטת|[בול]?כיכר",  # he
        r"[بو]?شارع|[بو]?ش\.|[بو]?طريق|[بو]?حي|[بو]?جادة|[بو]?زقاق",  # ar
        r"خیابان|کوچه|بلوار",  # fa
        r"gali|galli|गली",  # hi
    ]
)
# The name, then the street word, then the number: "Atatürk Caddesi No: 12", "Andrássy út 12",
# "Karl Johans gate 22", "गांधी मार्ग 12".
NAME_FIRST = "|".join(
    [
        r"caddesi|cad\.|cd\.|sokak|soka[ğg][ıi]|sok\.|sk\.|bulvar[ıi]|blv\.|mahallesi|mah\.|mh\.|yolu",  # tr
        r"utca|u\.|[úu]t|[úu]tja|t[ée]r|k[öo]r[úu]t|krt\.|s[ée]t[áa]ny|k[öo]z",  # hu
        r"gate|gata|vei|veien|vej|gade|all[ée]|plass|torv",  # no, da
        r"t[řr][íi]da",  # cs
        r"मार्ग|रोड|गली|नगर|पथ|चौक|कॉलोनी",  # hi
        r"marg|nagar|road|colony|chowk",  # hi-Latn, en (India)
    ]
)
# A word that ends in the street word, then the number: "Lindenstraße 45", "Kalverstraat 12",
# "Drottninggatan 5", "Nørrebrogade 20", "Mannerheimintie 12", "Brīvības iela 5", "테헤란로 123".
# German "-platz" and "-weg" end too many common nouns ("Arbeitsplatz 2 Tage").
COMPOUND_SUFFIXES = "|".join(
    [
        r"stra(?:ß|ss)e|str\.|gasse|allee|damm|ufer",  # de
        r"straat|laan|plein|gracht|kade|singel|steeg|dreef",  # nl
        r"gatan|v[äa]gen|gr[äa]nd|torget|stigen|all[ée]n",  # sv
        r"gade|vej|vejen|gata|veien|vegen",  # da, no
        r"katu|tie|kuja|polku|v[äa]yl[äa]|kaari",  # fi
        r"t[äa]nav|maantee",  # et
        r"iela|gatv[ėe]|prospektas",  # lv, lt
    ]
)
KOREAN_SUFFIXES = r"대로|로|길"
# The number, then the street word: "12 đường Lê Lợi", "123 ถนนสุขุมวิท", "12 شارع التحرير".
NUMBER_FIRST = r"đường|phố|ngõ|hẻm|ถนน|ซอย|شارع|طريق|רחוב|मार्ग|गली"
# A house, flat or plot by its number, then a sector, block or phase: "House no. 318, Sector 21C",
# "मकान नंबर 214, सेक्टर 15-ए", "Flat 4B, Block C" (India and others number localities, not streets).
HOUSE = r"house|flat|plot|villa|apartment|apt\.?|h\.? ?no\.?|मकान|फ्लैट|प्लॉट|घर|کوٹھی|مکان"
LOCALITY = r"sector|sec\.|phase|block|pocket|ward|khasra|सेक्टर|ब्लॉक|फेज़?|वार्ड|सेक्टर"
# "No. 5", "nr 12", "n° 3", "д. 5", "số 12", "เลขที่ 99/1", "번지": what may stand before the number.
NUMBER_MARK = (
    r"(?:building|bldg\.?|block|edificio|b[âa]timent|geb[äa]ude|корпус|блок|bina|blok|عمارة|بناية|مبنى|בניין)\s*"
    r"|no\.?:?|nr\.?|n[º°o]\.?|#|д\.|дом|дом\s?№|№|буд\.|číslo|č\.|số|เลขที่|מס['׳]?|رقم|نمبر|नं\.?|नंबर|h\.? ?no\.?"
)
# What a number before may count instead of a house: a time, a distance, people, money, a year.
NOT_HOUSE_NUMBER = "|".join(
    [
        r"min|hour|hr|h\b|sec|day|week|month|year|yr|km|mi\b|mile|m\b|people|person|time|kid|am\b|pm\b|%|x\b",
        r"heure|jour|an\b|ans\b|fois|personne|stund|tag|jahr|mal\b|leute|hora|d[íi]a|año|vez|veces|ore\b|giorn|anni",
        r"dia|ano|uur|dag|jaar|keer|godz|dni|lat\b|os[óo]b|raz|час|мин|дн|лет|год|раз|чел|хвил|годин|рок",
        r"λεπτ|ώρ|μέρ|χρόν|φορ|perc|óra|nap|év|hodin|minut|tunti|päiv|vuot|saat|dakika|gün|yıl|kez|kişi",
        r"jam|menit|hari|tahun|kali|orang|phút|giờ|tiếng|ngày|năm|lần|người|timm|tim\b|år\b|kr\b|lei\b|zł|eur|usd",
        r"분|시|개|명|원|번째|살|층|일|년|월|주|分|小时|点|个|人|元|年|月|日|天|次",
        r"นาที|ชั่วโมง|คน|บาท|ปี|วัน|ครั้ง|دقي|ساع|سن|يوم|أيام|مرة|شخص|דק|שע|שנ|ימים|פעמ|מינ|घंट|साल|दिन|लोग|बार",
    ]
)
