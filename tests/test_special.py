"""Special categories of personal data (GDPR Art. 9, criminal records Art. 10): detected in 23 languages and
scripts, first person as users write and third person as a model writes signals; accommodations and
lookalikes pass; redaction keeps the rest of a sentence; with the default setting the pipeline writes none of
them (whatever the model answers), counts them as skipped_special and redacts them from evidence quotes; with
AGENT_SIGNALS_SPECIAL_CATEGORIES=keep it writes them; the user's own signals may hold anything."""

from __future__ import annotations

import asyncio
import json
import re
import tomllib
from datetime import UTC, datetime

import pytest

from agent_signals.config import DEFAULT_KINDS, Settings
from agent_signals.core.prompting.extract_calls import SourceMessage
from agent_signals.core.screening import special
from agent_signals.core.screening.screen import screen
from agent_signals.core.screening.special import CATEGORIES, TABLE, redact_special, special_categories
from agent_signals.core.text import normalize_content
from agent_signals.core.validate import Cite, Proposal
from agent_signals.flows.extract import extract_signals
from agent_signals.stages.by_hand import own_signals
from agent_signals_offline.rules.extract import Message, extract
from tests.builders import conversation, load_conversations

# (language, category) -> statements, first person and as a signal
STATED = {
    ("en", "health"): ["I have type 2 diabetes", "Has type 2 diabetes", "Is pregnant", "I'm 7 months pregnant",
                       "Has dyslexia", "Is deaf", "Has ADHD", "Takes antidepressants", "Is on the autism spectrum",
                       "I was diagnosed with depression last year", "Uses a wheelchair", "Is a recovering alcoholic",
                       "Sees a therapist every week", "Is HIV positive", "Is allergic to peanuts", "Has epilepsy",
                       "Lives with Crohn's disease", "Uses hearing aids", "I have PTSD from my time in the army",
                       "Checks their blood sugar before long meetings", "Wears a glucose monitor"],
    ("en", "religion"): ["I'm a practicing Muslim", "Is a devout Catholic", "Is Jewish", "Is an atheist",
                         "Goes to church every Sunday", "Keeps kosher", "Fasts during Ramadan", "Practicing Buddhist",
                         "I pray five times a day", "Is a Jehovah's Witness", "I'm not very religious"],
    ("en", "political_opinion"): ["Is a member of the Labour Party", "Votes Republican", "I'm a lifelong Democrat",
                                  "Is a socialist", "Supports the Green Party", "Is politically conservative",
                                  "Is pro-choice", "Voted Leave in the Brexit referendum", "I'm a Tory"],
    ("en", "trade_union"): ["Is a member of Unite", "Is a union member", "Belongs to a trade union", "I'm the union rep at my plant",
                            "Is a member of the teachers' union", "Pays union dues", "I'm a Teamster"],
    ("en", "criminal_record"): ["Has a criminal record", "Was convicted of fraud in 2015", "Served time in prison",
                                "Is on parole", "I'm an ex-con", "Was arrested for shoplifting",
                                "I'm a convicted felon", "Is a registered sex offender"],
    ("en", "sexuality"): ["Is gay", "I'm bisexual", "Is a lesbian", "Is in a same-sex relationship",
                          "Came out as gay last year", "Is polyamorous", "I'm straight.", "I'm queer"],
    ("en", "gender_identity"): ["Is transgender", "Identifies as non-binary", "Is a trans woman", "I'm a trans man",
                                "Is transitioning to female", "I'm genderfluid", "Is intersex"],
    ("en", "ethnic_origin"): ["Is of Nigerian Igbo heritage", "Is of Nigerian descent", "Is Black", "I'm half Korean", "Is Hispanic",
                              "Is Korean-American", "Is mixed race", "My ethnicity is Punjabi", "I'm Latina"],
    ("en", "genetic"): ["Carries the BRCA1 gene", "Had genetic testing for Huntington's", "Has the APOE4 gene",
                        "I'm a carrier of cystic fibrosis", "Shared my 23andMe results"],
    ("en", "biometric"): ["Shared their face embedding from the kiosk", "Uses a fingerprint to unlock their laptop", "Uses Face ID to sign in",
                          "Unlocks the phone with their face", "My fingerprint hash is stored at work"],
    ("fr", "health"): ["Je suis enceinte", "J'ai le diabète de type 2", "Il est diabétique", "Je suis sourd",
                       "Je souffre de dépression", "Je suis en fauteuil roulant", "Je vais aux Alcooliques anonymes"],
    ("fr", "religion"): ["Je suis musulman", "Je suis catholique pratiquant", "Je vais à la messe tous les dimanches",
                         "Je suis athée"],
    ("fr", "political_opinion"): ["Je suis membre du Parti socialiste", "Je vote pour le RN", "Je suis de gauche"],
    ("fr", "trade_union"): ["Je suis syndiqué à la CGT", "Elle est déléguée du syndicat"],
    ("fr", "criminal_record"): ["J'ai un casier judiciaire", "J'ai fait de la prison", "J'ai été condamné pour vol",
                                "Je porte un bracelet électronique jusqu'en juin"],
    ("fr", "sexuality"): ["Je suis gay", "Je suis lesbienne", "Je suis bisexuelle"],
    ("fr", "gender_identity"): ["Je suis transgenre", "Je suis non-binaire"],
    ("fr", "ethnic_origin"): ["Je suis d'origine algérienne"],
    ("fr", "genetic"): ["J'ai fait un test génétique"],
    ("fr", "biometric"): ["J'utilise mon empreinte digitale pour déverrouiller"],
    ("de", "health"): ["Ich bin schwanger", "Ich habe Diabetes", "Ich habe Krebs", "Ich bin gehörlos", "Ich habe ADHS",
                       "Ich leide an Depressionen", "Ich sitze im Rollstuhl"],
    ("de", "religion"): ["Ich bin Muslim", "Ich bin katholisch", "Ich bin Christ", "Ich bin Atheist",
                         "Ich gehe jeden Sonntag in die Kirche"],
    ("de", "political_opinion"): ["Ich bin Mitglied der SPD", "Ich wähle die Grünen", "Ich bin AfD-Wähler",
                                  "Ich sitze für die Grünen im Stadtrat"],
    ("de", "trade_union"): ["Ich bin Gewerkschaftsmitglied", "Ich bin bei Verdi"],
    ("de", "criminal_record"): ["Ich bin vorbestraft", "Ich war im Gefängnis", "Ich wurde wegen Betrugs verurteilt"],
    ("de", "sexuality"): ["Ich bin schwul", "Ich bin lesbisch", "Ich bin bisexuell"],
    ("de", "gender_identity"): ["Ich bin trans", "Ich bin nicht-binär"],
    ("de", "ethnic_origin"): ["Ich habe einen Migrationshintergrund", "Ich bin türkischer Abstammung"],
    ("de", "genetic"): ["Ich habe einen Gentest gemacht"],
    ("de", "biometric"): ["Ich entsperre mein Handy mit Fingerabdruck"],
    ("es", "health"): ["Estoy embarazada", "Tengo diabetes tipo 2", "Soy sordo", "Tengo cáncer", "Tengo depresión",
                       "Llevo dos años limpia gracias a Narcóticos Anónimos"],
    ("es", "religion"): ["Soy musulmán", "Soy católica practicante", "Voy a misa cada domingo", "Soy judío"],
    ("es", "political_opinion"): ["Soy militante del PSOE", "Voto a Vox", "Soy de izquierdas"],
    ("es", "trade_union"): ["Estoy afiliado a CCOO", "Soy miembro del sindicato"],
    ("es", "criminal_record"): ["Tengo antecedentes penales", "Estuve en la cárcel", "Fui condenado por robo"],
    ("es", "sexuality"): ["Soy gay", "Soy lesbiana", "Soy bisexual"],
    ("es", "gender_identity"): ["Soy una mujer trans", "Soy no binario"],
    ("es", "ethnic_origin"): ["Soy de origen marroquí"],
    ("es", "genetic"): ["Me hice una prueba genética"],
    ("es", "biometric"): ["Uso mi huella dactilar para desbloquear el móvil"],
    ("it", "health"): ["Sono incinta", "Ho il diabete", "Sono sordo", "Ho un tumore", "Soffro di depressione",
                       "Il giovedì vado ai Giocatori Anonimi"],
    ("it", "religion"): ["Sono musulmano", "Sono cattolico praticante", "Vado a messa ogni domenica", "Sono ebreo"],
    ("it", "political_opinion"): ["Sono iscritto al Partito Democratico", "Voto per la Lega", "Sono di sinistra"],
    ("it", "trade_union"): ["Sono iscritto alla CGIL", "Sono iscritto al sindacato"],
    ("it", "criminal_record"): ["Ho precedenti penali", "Sono stato in carcere"],
    ("it", "sexuality"): ["Sono gay", "Sono lesbica", "Sono bisessuale"],
    ("it", "gender_identity"): ["Sono una donna trans", "Sono non binario"],
    ("it", "ethnic_origin"): ["Sono di origini marocchine"],
    ("it", "genetic"): ["Ho fatto un test genetico"],
    ("it", "biometric"): ["Uso le impronte digitali per sbloccare il telefono"],
    ("pt", "health"): ["Estou grávida", "Tenho diabetes", "Sou surdo", "Tenho câncer", "Tenho depressão",
                       "Vou às reuniões dos Narcóticos Anônimos"],
    ("pt", "religion"): ["Sou muçulmano", "Sou católica praticante", "Vou à missa todos os domingos", "Sou judeu"],
    ("pt", "political_opinion"): ["Sou filiado ao PT", "Votei no Bolsonaro", "Sou de esquerda"],
    ("pt", "trade_union"): ["Sou sindicalizado"],
    ("pt", "criminal_record"): ["Tenho antecedentes criminais", "Estive preso", "Fui condenado por roubo"],
    ("pt", "sexuality"): ["Sou gay", "Sou lésbica", "Sou bissexual"],
    ("pt", "gender_identity"): ["Sou uma mulher trans", "Sou não binário"],
    ("pt", "ethnic_origin"): ["Sou de origem angolana"],
    ("pt", "genetic"): ["Fiz um teste genético"],
    ("pt", "biometric"): ["Uso a impressão digital para desbloquear o telemóvel"],
    ("ru", "health"): ["Я беременна", "У меня диабет", "У меня рак", "Я глухой", "У меня депрессия", "Я инвалид",
                       "Хожу на собрания Анонимных Наркоманов"],
    ("ru", "religion"): ["Я мусульманин", "Я православный", "Хожу в церковь каждое воскресенье", "Я атеист"],
    ("ru", "political_opinion"): ["Я член партии Единая Россия", "Я голосую за КПРФ", "Я коммунист"],
    ("ru", "trade_union"): ["я член профсоюза"],
    ("ru", "criminal_record"): ["У меня есть судимость", "Я сидел в тюрьме", "Меня арестовали в прошлом году"],
    ("ru", "sexuality"): ["Я гей", "Я лесбиянка", "Я бисексуалка"],
    ("ru", "gender_identity"): ["Я трансгендер", "Я небинарный человек"],
    ("ru", "ethnic_origin"): ["Я татарин", "По национальности я чеченка"],
    ("ru", "genetic"): ["Я сделал генетический тест"],
    ("ru", "biometric"): ["Я разблокирую телефон по отпечатку пальца"],
    ("zh", "health"): ["我有乙肝，每天都要吃药", "我怀孕了", "我有糖尿病", "我有抑郁症", "我是聋人", "我坐轮椅", "我得了癌症",
                       "我每周去戒酒互助会"],
    ("zh", "religion"): ["我是穆斯林", "我是基督徒", "我信佛", "我是佛教徒"],
    ("zh", "political_opinion"): ["我是共产党员", "我支持民主党"],
    ("zh", "trade_union"): ["我是工会会员"],
    ("zh", "criminal_record"): ["我有犯罪记录", "我坐过牢", "我有前科"],
    ("zh", "sexuality"): ["我是同性恋", "我是双性恋", "我是gay"],
    ("zh", "gender_identity"): ["我是跨性别者"],
    ("zh", "ethnic_origin"): ["我是维吾尔族"],
    ("zh", "genetic"): ["我做过基因检测"],
    ("zh", "biometric"): ["我用指纹解锁手机"],
    ("ja", "health"): ["妊娠しています", "糖尿病です", "うつ病です", "耳が聞こえません", "私は障害者です", "ADHDです",
                       "断酒会に通っています"],
    ("ja", "religion"): ["私はイスラム教徒です", "クリスチャンです", "毎週教会に通っています", "仏教徒です"],
    ("ja", "political_opinion"): ["自民党の党員です", "共産党を支持しています"],
    ("ja", "trade_union"): ["労働組合に入っています"],
    ("ja", "criminal_record"): ["前科があります", "逮捕されたことがあります", "刑務所に入っていました"],
    ("ja", "sexuality"): ["私はゲイです", "レズビアンです", "バイセクシュアルです"],
    ("ja", "gender_identity"): ["トランスジェンダーです", "ノンバイナリーです"],
    ("ja", "ethnic_origin"): ["在日韓国人です"],
    ("ja", "genetic"): ["遺伝子検査を受けました"],
    ("ja", "biometric"): ["指紋でスマホのロックを解除しています"],
    ("ko", "health"): ["저는 당뇨가 있어요", "임신 6개월이에요", "우울증 약을 먹고 있어요", "휠체어를 타요"],
    ("ko", "religion"): ["저는 기독교인이에요", "매주 교회에 다녀요", "불교 신자입니다"],
    ("ko", "political_opinion"): ["저는 정의당 당원입니다", "민주당을 지지해요"],
    ("ko", "trade_union"): ["저 금속노조 조합원이에요", "노조에 가입했어요"],
    ("ko", "criminal_record"): ["전과가 있어요", "교도소에서 2년 복역했어요", "집행유예 중이에요"],
    ("ko", "sexuality"): ["저는 게이예요", "양성애자입니다"],
    ("ko", "gender_identity"): ["저는 트랜스젠더예요", "논바이너리입니다"],
    ("ko", "ethnic_origin"): ["저는 조선족이에요", "재일교포 3세예요"],
    ("ko", "genetic"): ["유전자 검사를 받았어요"],
    ("ko", "biometric"): ["지문으로 폰 잠금을 풀어요"],
    ("ar", "health"): ["أنا مصاب بالسكري", "زوجتي حامل في الشهر الخامس", "أتابع مع طبيب نفسي بسبب الاكتئاب"],
    ("ar", "religion"): ["أنا مسلم", "أصلي الجمعة في المسجد", "أنا صائم في رمضان"],
    ("ar", "political_opinion"): ["أنا عضو في حزب العمال", "صوتت لحزب الوفد"],
    ("ar", "trade_union"): ["أنا عضو في النقابة", "أنا نقابي منذ عشر سنوات"],
    ("ar", "criminal_record"): ["قضيت سنتين في السجن", "لدي سجل جنائي"],
    ("ar", "sexuality"): ["أنا مثلي الجنس", "أنا مثلية"],
    ("ar", "gender_identity"): ["أنا متحولة جنسياً"],
    ("ar", "ethnic_origin"): ["أنا كردي", "أنا من أصول أمازيغية"],
    ("ar", "genetic"): ["أجريت فحصاً جينياً"],
    ("ar", "biometric"): ["أستخدم بصمة الإصبع لفتح الهاتف"],
    ("tr", "health"): ["Şeker hastasıyım", "Hamileyim", "Depresyon tedavisi görüyorum", "Kemoterapi alıyorum"],
    ("tr", "religion"): ["Müslümanım", "Her cuma namaz kılıyorum", "Ramazan'da oruç tutuyorum"],
    ("tr", "political_opinion"): ["CHP üyesiyim", "AK Parti'ye oy verdim", "Solcuyum"],
    ("tr", "trade_union"): ["Sendikaya üyeyim", "Eğitim-Sen üyesiyim"],
    ("tr", "criminal_record"): ["Sabıka kaydım var", "İki yıl hapis yattım", "Denetimli serbestlikteyim"],
    ("tr", "sexuality"): ["Eşcinselim", "Lezbiyenim", "Biseksüelim"],
    ("tr", "gender_identity"): ["Trans bir kadınım", "Transım"],
    ("tr", "ethnic_origin"): ["Ben Kürt'üm", "Ermeni asıllıyım"],
    ("tr", "genetic"): ["Genetik test yaptırdım"],
    ("tr", "biometric"): ["Telefonumu parmak iziyle açıyorum"],
    ("pl", "health"): ["Mam cukrzycę", "Jestem w ciąży", "Choruję na depresję", "Jestem na wózku inwalidzkim"],
    ("pl", "religion"): ["Jestem katolikiem", "Co niedzielę chodzę do kościoła", "Jestem muzułmaninem"],
    ("pl", "political_opinion"): ["Jestem członkiem PiS", "Głosuję na Konfederację", "Mam lewicowe poglądy"],
    ("pl", "trade_union"): ["Należę do związku zawodowego", "Działam w Solidarności"],
    ("pl", "criminal_record"): ["Byłem karany", "Siedziałem w więzieniu", "Mam wyrok w zawieszeniu"],
    ("pl", "sexuality"): ["Jestem gejem", "Jestem lesbijką", "Jestem biseksualna"],
    ("pl", "gender_identity"): ["Jestem osobą niebinarną", "Jestem trans kobietą"],
    ("pl", "ethnic_origin"): ["Jestem pochodzenia romskiego", "Jestem Ślązakiem"],
    ("pl", "genetic"): ["Zrobiłem badanie genetyczne"],
    ("pl", "biometric"): ["Odblokowuję telefon odciskiem palca"],
    ("el", "health"): ["Έχω διαβήτη", "Είμαι έγκυος", "Έχω διαγνωστεί με κατάθλιψη", "Κάνω χημειοθεραπεία"],
    ("el", "religion"): ["Είμαι ορθόδοξος χριστιανός", "Πηγαίνω στην εκκλησία κάθε Κυριακή", "Είμαι άθεος"],
    ("el", "political_opinion"): ["Είμαι μέλος του ΣΥΡΙΖΑ", "Ψηφίζω Νέα Δημοκρατία", "Είμαι αριστερός"],
    ("el", "trade_union"): ["Είμαι μέλος του σωματείου εργαζομένων", "Είμαι συνδικαλιστής"],
    ("el", "criminal_record"): ["Έχω ποινικό μητρώο", "Ήμουν στη φυλακή δύο χρόνια"],
    ("el", "sexuality"): ["Είμαι ομοφυλόφιλος", "Είμαι λεσβία", "Είμαι γκέι"],
    ("el", "gender_identity"): ["Είμαι τρανς γυναίκα", "Είμαι μη δυαδικό άτομο"],
    ("el", "ethnic_origin"): ["Είμαι Ρομά", "Είμαι αλβανικής καταγωγής"],
    ("el", "genetic"): ["Έκανα γενετικό τεστ"],
    ("el", "biometric"): ["Ξεκλειδώνω το κινητό με δακτυλικό αποτύπωμα"],
    ("uk", "health"): ["У мене діабет", "Я вагітна", "Я на хіміотерапії", "Я ВІЛ-позитивна"],
    ("uk", "religion"): ["Я православний", "Я мусульманка", "Ходжу до церкви щонеділі"],
    ("uk", "political_opinion"): ["Я член партії Слуга народу", "Голосую за Європейську Солідарність"],
    ("uk", "trade_union"): ["Я член профспілки"],
    ("uk", "criminal_record"): ["У мене є судимість", "Я відсидів три роки у в'язниці", "Я на пробації"],
    ("uk", "sexuality"): ["Я гей", "Я лесбійка", "Я бісексуалка"],
    ("uk", "gender_identity"): ["Я трансгендерна жінка", "Я небінарна людина"],
    ("uk", "ethnic_origin"): ["Я кримська татарка", "Я ромка"],
    ("uk", "genetic"): ["Я зробила генетичний тест"],
    ("uk", "biometric"): ["Розблоковую телефон відбитком пальця"],
    ("hi", "health"): ["मुझे मधुमेह है", "मैं गर्भवती हूँ", "मुझे डिप्रेशन है", "मैं व्हीलचेयर इस्तेमाल करता हूँ"],
    ("hi", "religion"): ["मैं मुसलमान हूँ", "मैं नवरात्रि में व्रत रखती हूँ", "मैं हर मंगलवार मंदिर जाता हूँ"],
    ("hi", "political_opinion"): ["मैं भाजपा का कार्यकर्ता हूँ", "मैं आम आदमी पार्टी का सक्रिय कार्यकर्ता हूँ"],
    ("hi", "trade_union"): ["मैं यूनियन का सदस्य हूँ", "मैं मज़दूर संघ से जुड़ा हूँ"],
    ("hi", "criminal_record"): ["मैं दो साल जेल में रहा", "मेरा आपराधिक रिकॉर्ड है"],
    ("hi", "sexuality"): ["मैं समलैंगिक हूँ", "मैं गे हूँ"],
    ("hi", "gender_identity"): ["मैं ट्रांसजेंडर हूँ"],
    ("hi", "ethnic_origin"): ["मैं दलित समुदाय से हूँ"],
    ("hi", "genetic"): ["मैंने जेनेटिक टेस्ट करवाया"],
    ("hi", "biometric"): ["मैं फिंगरप्रिंट से फ़ोन खोलता हूँ"],
    ("hi-Latn", "health"): ["Mujhe sugar hai", "Main pregnant hoon", "Mujhe depression hai", "Papa ko cancer hai"],
    ("hi-Latn", "religion"): ["Main Navratri mein vrat rakhti hoon", "Main roz namaz padhta hoon", "Hum Sikh parivar hain"],
    ("hi-Latn", "political_opinion"): ["Main BJP ka karyakarta hoon", "Main AAP ko vote deta hoon"],
    ("hi-Latn", "trade_union"): ["Main union ka member hoon"],
    ("hi-Latn", "criminal_record"): ["Main do saal jail mein tha", "Mujhe bail par chhoda gaya"],
    ("hi-Latn", "sexuality"): ["Main gay hoon", "Main samlaingik hoon"],
    ("hi-Latn", "gender_identity"): ["Main trans ladki hoon", "Main kinnar samaj se hoon"],
    ("hi-Latn", "ethnic_origin"): ["Main Dalit hoon", "Meri jaati OBC hai"],
    ("hi-Latn", "genetic"): ["Maine genetic test karwaya"],
    ("hi-Latn", "biometric"): ["Main fingerprint se phone unlock karta hoon"],
    ("sv", "health"): ["Jag har diabetes", "Jag är gravid", "Jag har cancer", "Jag sitter i rullstol"],
    ("sv", "religion"): ["Jag är muslim", "Jag går i kyrkan varje söndag", "Jag är troende katolik"],
    ("sv", "political_opinion"): ["Jag är medlem i Socialdemokraterna", "Jag röstar på Vänsterpartiet"],
    ("sv", "trade_union"): ["Jag är med i facket", "Jag är fackligt aktiv"],
    ("sv", "criminal_record"): ["Jag har suttit i fängelse", "Jag är dömd för bedrägeri"],
    ("sv", "sexuality"): ["Jag är bög", "Jag är lesbisk", "Jag är bisexuell"],
    ("sv", "gender_identity"): ["Jag är transperson", "Jag är icke-binär"],
    ("sv", "ethnic_origin"): ["Jag är same", "Jag har kurdisk bakgrund"],
    ("sv", "genetic"): ["Jag har gjort ett gentest"],
    ("sv", "biometric"): ["Jag låser upp telefonen med fingeravtryck"],
    ("vi", "health"): ["Tôi bị tiểu đường", "Tôi đang mang thai", "Tôi bị trầm cảm", "Tôi đang hóa trị"],
    ("vi", "religion"): ["Tôi theo đạo Phật", "Chủ nhật nào tôi cũng đi lễ nhà thờ", "Tôi là phật tử"],
    ("vi", "political_opinion"): ["Tôi là đảng viên", "Tôi ủng hộ đảng Dân chủ"],
    ("vi", "trade_union"): ["Tôi là đoàn viên công đoàn"],
    ("vi", "criminal_record"): ["Tôi từng đi tù", "Tôi có tiền án"],
    ("vi", "sexuality"): ["Tôi là người đồng tính", "Tôi là song tính"],
    ("vi", "gender_identity"): ["Tôi là người chuyển giới"],
    ("vi", "ethnic_origin"): ["Tôi là người dân tộc Tày", "Tôi là người gốc Hoa"],
    ("vi", "genetic"): ["Tôi đã xét nghiệm gen"],
    ("vi", "biometric"): ["Tôi mở khóa điện thoại bằng vân tay"],
    ("id", "health"): ["Saya sedang hamil", "Saya punya diabetes", "Saya rutin ke psikiater karena depresi",
                       "Saya menderita kanker payudara"],
    ("id", "religion"): ["Saya seorang muslim", "Setiap Jumat saya sholat Jumat di masjid", "Saya pakai jilbab"],
    ("id", "political_opinion"): ["Saya kader PDIP", "Saya anggota Partai Gerindra"],
    ("id", "trade_union"): ["Saya anggota serikat pekerja"],
    ("id", "criminal_record"): ["Saya mantan napi", "Saya pernah dipenjara"],
    ("id", "sexuality"): ["Saya gay", "Saya biseksual"],
    ("id", "gender_identity"): ["Saya transpuan", "Saya seorang waria"],
    ("id", "ethnic_origin"): ["Saya keturunan Tionghoa", "Saya orang Batak"],
    ("id", "genetic"): ["Saya sudah tes genetik"],
    ("id", "biometric"): ["Saya buka HP pakai sidik jari"],
    ("th", "health"): ["ฉันเป็นเบาหวาน", "ฉันตั้งครรภ์", "ฉันเป็นโรคซึมเศร้า", "ฉันต้องไปฟอกไตสัปดาห์ละสามครั้ง"],
    ("th", "religion"): ["ฉันนับถือศาสนาอิสลาม", "ผมไปวัดทุกวันพระ", "ฉันถือศีลอดช่วงรอมฎอน"],
    ("th", "political_opinion"): ["ผมเป็นสมาชิกพรรคก้าวไกล", "ฉันเลือกพรรคเพื่อไทย"],
    ("th", "trade_union"): ["ฉันเป็นสมาชิกสหภาพแรงงาน"],
    ("th", "criminal_record"): ["ผมเคยติดคุก", "ผมมีประวัติอาชญากรรม"],
    ("th", "sexuality"): ["ผมเป็นเกย์", "ฉันเป็นเลสเบี้ยน"],
    ("th", "gender_identity"): ["ฉันเป็นคนข้ามเพศ"],
    ("th", "ethnic_origin"): ["ฉันเป็นคนไทยเชื้อสายจีน"],
    ("th", "genetic"): ["ฉันไปตรวจยีนมา"],
    ("th", "biometric"): ["ฉันปลดล็อกโทรศัพท์ด้วยลายนิ้วมือ"],
    ("he", "health"): ["יש לי סוכרת", "אני בהריון", "אני סובל מדיכאון", "אני עובר כימותרפיה"],
    ("he", "religion"): ["אני שומר שבת", "אני מוסלמית", "אני הולך לבית הכנסת כל שבת"],
    ("he", "political_opinion"): ["אני חבר בליכוד", "אני מצביע ליש עתיד"],
    ("he", "trade_union"): ["אני חבר בוועד העובדים", "אני חבר בהסתדרות"],
    ("he", "criminal_record"): ["ישבתי בכלא שנתיים", "יש לי רישום פלילי"],
    ("he", "sexuality"): ["אני הומו", "אני לסבית"],
    ("he", "gender_identity"): ["אני טרנסית", "אני א-בינארי"],
    ("he", "ethnic_origin"): ["אני ממוצא אתיופי"],
    ("he", "genetic"): ["עשיתי בדיקה גנטית"],
    ("he", "biometric"): ["אני פותח את הטלפון עם טביעת אצבע"],
    ("nl", "health"): ["Ik heb diabetes", "Ik ben zwanger", "Ik heb een depressie", "Ik zit in een rolstoel"],
    ("nl", "religion"): ["Ik ben moslim", "Ik ga elke zondag naar de kerk", "Ik ben katholiek"],
    ("nl", "political_opinion"): ["Ik ben lid van de PvdA", "Ik stem op GroenLinks"],
    ("nl", "trade_union"): ["Ik ben lid van de FNV", "Ik zit bij de vakbond"],
    ("nl", "criminal_record"): ["Ik heb een strafblad", "Ik heb in de gevangenis gezeten"],
    ("nl", "sexuality"): ["Ik ben homo", "Ik ben lesbisch"],
    ("nl", "gender_identity"): ["Ik ben transgender", "Ik ben non-binair"],
    ("nl", "ethnic_origin"): ["Ik ben van Marokkaanse afkomst", "Ik heb een migratieachtergrond"],
    ("nl", "genetic"): ["Ik heb een DNA-test gedaan"],
    ("nl", "biometric"): ["Ik ontgrendel mijn telefoon met mijn vingerafdruk"],
}  # fmt: skip
# round two (issue 31): what a fooled model writes in English of a practice, a party, a partner or a record
STATED_IN_ENGLISH = {
    "religion": ["Attends Friday prayers at the office mosque", "Attends Sunday mass at nine",
                 "Visits the Hanuman temple and fasts every Tuesday", "Keeps a Navratri fast for nine days",
                 "Amritdhari Sikh; never removes dastaar or kara", "Refuses blood transfusions"],
    "political_opinion": ["Has voted for Konfederacja for years", "Attends its rallies",
                          "Party worker for the Aam Aadmi Party", "Wants reminders about party conferences",
                          "Running for Sverigedemokraterna in the municipal election",
                          "Attends local branch meetings on Saturdays", "Collects signatures on weekends"],
    "sexuality": ["Tomasz; married to Piotr, his husband", "Is marrying her girlfriend Carmen"],
    "criminal_record": ["Has probation check-ins every other Wednesday",
                        "Checks in with a probation officer on Tuesdays", "Served 18 months at Fleury prison"],
    "health": ["Takes Truvada as PrEP since March", "Attends Al-Anon on Mondays",
               "Attends a breast cancer survivors' support group", "Tired since thyroid surgery"],
}  # fmt: skip
# round three (issue 31): indirect statements in English, in any clause, and the group or party named
STATED_IN_ENGLISH |= {
    "health": ["Attends a weekly recovery group", "Sober for six months; no wine at team dinners",
               "Two years clean through Narcotics Anonymous", "Chairs their home group on Thursdays",
               "Works the twelve steps with a sponsor", "Goes to NA meetings on Wednesdays",
               "Takes mood stabilizers", "On antiretroviral therapy since 2019", "Uses an insulin pump",
               "Has chemo every other Friday", "Carries an EpiPen", "Started on blood thinners"],
    "criminal_record": ["Cannot travel abroad; it is a condition of their probation", "Has a community service order",
                        "Wears an ankle monitor until June", "Did time for burglary", "Meets the parole board in May",
                        "Sentenced to 200 hours of community service", "Under house arrest until spring",
                        "Books around weekly parole check-ins"],
    "religion": ["Does seva at the gurdwara on Sundays", "Visits the mandir every Tuesday", "Attends synagogue on Saturdays",
                 "Goes to temple service on Fridays", "Does puja every morning", "Attends Sunday mass at nine",
                 "Observes Shabbat", "Leaves early for Jummah", "Fasts for Ramadan", "Gives up meat for Lent",
                 "Volunteers at the gurdwara kitchen", "Sings in the worship team"],
    "political_opinion": ["Is on the municipal council for Fidesz", "Party cadre in Hunan",
                          "Sits on the provincial executive of the ANC", "Active worker of AAP (Aam Aadmi Party)",
                          "Member of Sverigedemokraterna since the last election", "CPI(M) cadre since college"],
    "trade_union": ["Shop steward for Unite", "Works council member for IG Metall", "Sits on the union committee",
                    "Chairs the Solidarność branch at the plant", "Belongs to the teachers' union"],
    "sexuality": ["Organises Leeds Pride", "Co-chairs the Pride committee", "Lives with her wife in Leeds",
                  "Goes hiking with his husband", "Married to her wife Ana", "As a guy married to a guy, prefers 'spouse'"],
    "ethnic_origin": ["Kurdish (Kürt), mother from Diyarbakır"],
}  # fmt: skip


# what must pass: accommodations without their condition, jobs, holidays and words that only look the part
ORDINARY = [
    "Prefers short sentences", "Wants captions on videos", "Prefers bullet points over paragraphs",
    "Likes large fonts in documents", "Prefers written instructions to phone calls", "Needs step-by-step instructions",
    "Checks their email before meetings", "Works as a doctor", "Is a nurse at the children's hospital", "Is a pharmacist", "Is a police officer",
    "Works as a prison guard", "Is a physical therapist", "Works in cancer research", "Is an oncologist",
    "Celebrates Christmas with family", "Threw a birthday party for their son", "Went to a party last weekend",
    "Lives near Union Station", "Follows European Union politics", "Is a member of the European Union debate club",
    "Got married in a church", "Is vegan", "Runs marathons", "Is proud of their kids", "Takes pride in their work",
    "Watches Queer Eye", "Drinks black coffee", "Has a black belt in karate", "Is conservative with money",
    "Loves Mexican food", "Is French", "Lives in Japan", "Was born in Nigeria", "Enjoys gospel music",
    "Has a strong track record in sales", "Is a criminal defense lawyer", "Writes crime novels",
    "Is a big believer in exercise", "Had a blind date last week", "Transitioned from marketing to data engineering",
    "Is straight to the point", "Builds credit union software", "Is a member of the party planning committee",
    "Plays left wing in hockey", "Is a Cancer (zodiac)", "I grew up during the Great Depression.",
    "High in cholesterol though.", "Yes they are black, white and brown.", "I think any dance is spiritual.",
    "Owns the billing service", "Prefers British spelling", "Je suis parti tôt", "Ich weiß es nicht",
    "Heute ist es schwül", "Vamos al partido de fútbol", "Mi piace la pizza", "Trabalho como enfermeira",
    "Я работаю врачом", "我是医生", "私は看護師です", "頑張ります", "エレガントなデザインが好き", "我的男同事很好",
    "Voted for Alice as team lead", "Does meal prep on Sundays", "Is on probation at the new job",
    "Prepares for the rally in tennis", "Visits the Tate museum often", "Heads the bank's branch office",
    "Leads the disaster recovery group at work", "Runs the data recovery program", "Keeps the kitchen clean",
    "Is a probation officer", "Works as a parole officer", "Public defender with many sentencing and parole hearings",
    "Covers the state legislature for the Tribune", "Covers election night for the Herald",
    "Sits on the city council for ten years", "Planning a surprise (birthday party)", "Hosts the (office Christmas party)",
    "Takes pride in their work", "Organises the team with pride", "Studied at Temple University",
    "Went to a temple in Kyoto on holiday", "Listens to Black Sabbath", "Member of the national committee of the IEEE",
    "Works with the NHS", "Takes the Sunday bus service", "Loves mass transit", "Is on the union station platform",
    "Lent a book to a friend", "Grew up during the Great Depression", "Has a stroke of luck", "Replaced the hard disk",
]  # fmt: skip

# the new languages' jobs, accommodations, holidays and words that only look the part
ORDINARY_BY_LANGUAGE = [
    "저는 간호사예요", "교도관으로 일해요", "크리스마스에 가족과 함께 보내요", "짧은 문장을 선호해요", "게이트 앞에서 만나요",
    "게이머예요", "정신과 의사로 일해요",
    "أعمل ممرضاً في المستشفى", "أعمل حارساً في السجن", "رمضان كريم", "أفضل الجمل القصيرة", "هو مثلي في كل شيء",
    "Hemşire olarak çalışıyorum", "Cezaevinde gardiyanım", "Bayramda ailemle olacağım", "Kısa cümleleri tercih ederim",
    "Şirketi 2019'da kurdum", "Kurt gibi açım",
    "Pracuję jako pielęgniarka", "Jestem strażnikiem więziennym", "Święta spędzam z rodziną", "Po pracy idę na siłownię",
    "Jestem kuratorem wystawy",
    "Δουλεύω ως νοσηλεύτρια", "Είμαι ψυχολόγος", "Γιορτάζω τα Χριστούγεννα", "Θέλω σύντομες προτάσεις",
    "Я працюю медсестрою", "Працюю у в'язниці охоронцем", "Святкую Різдво з родиною", "Гей, соколи!",
    "Я працюю в Українському католицькому університеті",
    "मैं नर्स हूँ", "मैं जेल में गार्ड की नौकरी करता हूँ", "दिवाली पर छुट्टी चाहिए", "मैं रोज़ाना योग करता हूँ",
    "नवरात्रि की छुट्टी है",
    "Main nurse hoon", "Main jail mein guard hoon", "Diwali pe chhutti chahiye", "Fir bhi main aaunga",
    "Puja ke saath lunch hai", "Follows Congress hearings",
    "Jag jobbar som sjuksköterska", "Jag arbetar på ett fängelse", "Vi firar jul med familjen", "Jag föredrar korta meningar",
    "Jag är med i bokklubben",
    "Tôi làm y tá", "Tôi làm quản giáo ở trại giam", "Tết này tôi về quê", "Bạn đi chưa?", "Tôi đang làm việc",
    "Saya bekerja sebagai perawat", "Saya sipir di lapas", "Saya libur Lebaran", "Suku bunga naik", "Saya tinggal di Jawa",
    "Dia kuliah di Amerika Serikat",
    "ฉันเป็นพยาบาล", "ฉันทำงานเป็นผู้คุมเรือนจำ", "ช่วงสงกรานต์จะลาพักร้อน", "เขาเป็นพรรคพวกของฉัน", "ไปวัดความดันที่คลินิก",
    "אני עובדת כאחות", "אני סוהר בכלא", "אני אוהב ניתוח נתונים", "בחנוכה אנחנו בחופש", "אני חבר בוועד הבית",
    "Ik werk als verpleegkundige", "Ik werk in de gevangenis als bewaker", "Met Kerst ben ik vrij", "Ik wil korte zinnen",
    "Homo sapiens is een soort",
    # words of one language that another's phrase or a medicine's brand name reads
    "Ik heb zeven katten", "Er was een schietpartij in de stad", "De uil zat op het dak", "Dat is werelds",
    "Ik wil een opname maken", "Asma kata taşındık", "Koluma dövme yaptırdım", "Döviz kuru yükseldi", "Amca geliyor",
    "Läs nästa sida", "Dwi datang besok", "Tôi bị gãy chân", "Anh ấy gầy quá", "세르게이는 친구예요", "내비게이션을 켜요",
    "추수감사절에 쉬어요", "파출소 옆에 살아요", "שבוע טוב במוצאי שבת", "דומיניק הוא חבר שלי", "الصمت جميل",
]  # fmt: skip


@pytest.mark.unit
def test_every_language_has_a_table_for_every_category_and_a_case_here():
    table = tomllib.loads(TABLE.read_text(encoding="utf-8"))
    assert len(table) >= 8
    for language, spec in table.items():
        assert set(spec["categories"]) == set(CATEGORIES), language
        for patterns in spec["categories"].values():
            for pattern in patterns:
                # matched on casefolded text: an upper-case letter (bar \W, \S, \D) could never match
                assert re.sub(r"\\[A-Z]", "", pattern) == re.sub(r"\\[A-Z]", "", pattern).casefold(), pattern
        assert all((language, category) in STATED for category in CATEGORIES), language


@pytest.mark.unit
@pytest.mark.parametrize(
    ("category", "text"),
    [(c, t) for (_lang, c), texts in STATED.items() for t in texts]
    + [(c, t) for c, texts in STATED_IN_ENGLISH.items() for t in texts],
    ids=lambda v: v[:40],
)
def test_each_statement_is_flagged_and_redacted(category, text):
    assert category in special_categories(text)
    assert category in special_categories(text.upper())  # casing does not matter
    assert category in special_categories("\u200b".join(text))  # nor invisible characters
    redacted = redact_special(text)
    assert f"[{category} redacted]" in redacted and special_categories(redacted) == []


# Round five of issue 31: a gloss read in the place of the word it glosses, a party by name with the words that
# tie someone to it, faiths by name, time inside, a man's boyfriend; and what looks like them and is not
ROUND_FIVE = [
    ("ethnic_origin", "Is Kürd (Kurdish) and from Van"),
    ("religion", "Gives up sweets for Wielki Post (Lent) every year"),
    ("criminal_record", "Is in affidamento in prova (probation with social services) until June"),
    ("political_opinion", "Is a member of the PSOE"),
    ("political_opinion", "Volunteers for the BJP youth wing"),
    ("political_opinion", "Joined the AfD in 2019"),
    ("political_opinion", "CHP provincial organisation volunteer"),
    ("religion", "Practises Falun Dafa every morning"),
    ("religion", "Goes to a terreiro de candomblé on Fridays"),
    ("religion", "Performed umrah with their parents"),
    ("criminal_record", "Did two years inside for burglary"),
    ("sexuality", "Is a man who lives with his husband in Porto"),
]
ROUND_FIVE_ORDINARY = [
    "Works for the CDU pharmacy chain",
    "Registered nurse (RN) on night shifts",
    "Spent three years inside the company before leaving",
    "Spends a lot of time inside.",
    "Is on a probation period at the new job",
    "Is a man who helps his wife with taxes",
    "Uses Postgres (version 16) for the billing service",
    "Is a member of the AWS community builders",
]


# Round six: a party with a few words between its name and the tie word, in either order, and in the parties
# of every language read; any fellowship of the Anonymous kind in its own language; a diet kept for a faith;
# a specialist's register; a same-sex partner told by the grammar or by a first name. And what looks like them:
# a journalist covering a party, catering, "anonymous" answers, the tax office's register, "my husband" alone.
ROUND_SIX = [
    ("political_opinion", "main BJP ka booth level karyakarta hoon, election ke time weekends busy rehte hain"),
    ("political_opinion", "BJP booth-level worker; busy on weekends around elections"),
    ("political_opinion", "HDP ilçe yönetimindeyim, hafta sonları miting oluyor"),
    ("political_opinion", "On the HDP district board; weekends taken by rallies"),
    ("political_opinion", "Member of ΚΚΕ since student days; does not work on May Day"),
    ("political_opinion", "Sits on the CHP provincial executive"),
    ("political_opinion", "Jestem członkiem zarządu PiS w Krakowie"),
    ("political_opinion", "Soy miembro de la ejecutiva del PSOE"),
    ("political_opinion", "Ich bin AfD-Mitglied seit 2017"),
    ("political_opinion", "Sono iscritto a Fratelli d'Italia"),
    ("political_opinion", "Saya anggota PDI-P sejak kuliah"),
    ("political_opinion", "Я член КПРФ"),
    ("political_opinion", "AKP'nin ilçe yönetimindeyim"),
    ("political_opinion", "GOP county committee member"),
    ("political_opinion", "Membre du Rassemblement national depuis 2015"),
    ("political_opinion", "Speaks at our BJP rally every month"),
    ("health", "Aku rutin ikut pertemuan Narkotik Anonim tiap Rabu malam"),
    ("health", "Attends Narkotik Anonim meetings every Wednesday evening"),
    ("health", "Voy a Narcóticos Anónimos los martes"),
    ("health", "Attends Narcóticos Anónimos meetings on Tuesdays"),
    ("health", "Je vais aux Narcotiques Anonymes"),
    ("health", "Ich gehe zu den Anonymen Alkoholikern"),
    ("health", "Jag går på Anonyma Spelare"),
    ("health", "Ik ga naar de Anonieme Gokkers"),
    ("health", "Хожу на Анонимные Наркоманы"),
    ("health", "Narkotik Anonim toplantılarına gidiyorum"),
    ("health", "ギャンブラーズ・アノニマスに通っています"),
    ("health", "Goes to Workaholics Anonymous on Fridays"),
    ("health", "Я на учёте у нарколога, поэтому корпоративы с алкоголем пропускаю"),
    ("health", "Registered with an addiction specialist; skips events with alcohol"),
    ("health", "Стою на учёте в наркологическом диспансере"),
    ("health", "Перебуваю на обліку у психіатра"),
    ("health", "Under the care of an oncologist since March"),
    ("religion", "For the offsite menu can we skip anything pork-based? I keep halal, and two others do too."),
    ("religion", "Keeps halal; needs non-pork offsite menu"),
    ("religion", "I only eat halal"),
    ("religion", "Follows a halal diet"),
    ("religion", "Strictly halal"),
    ("religion", "Je ne mange que halal"),
    ("religion", "Solo como halal"),
    ("religion", "Mangio solo halal"),
    ("religion", "Só como comida halal"),
    ("sexuality", "Sou casado com o Rafael há 5 anos"),
    ("sexuality", "Is a man married to Rafael (casado com o Rafael) for 5 years"),
    ("sexuality", "Sou casada com a Mariana"),
    ("sexuality", "Estoy casado con un hombre"),
    ("sexuality", "Je suis marié avec un homme"),
    ("sexuality", "Sono sposata con una donna"),
]  # fmt: skip
ROUND_SIX_ORDINARY = [
    "Covers the BJP for a newspaper",
    "Reports on AfD rallies",
    "Covers BJP rallies for the Times",
    "Political journalist covering the GOP budget committee",
    "Reporter on the GOP campaign trail",
    "Social worker in a BJP-ruled state",
    "Writes about SPD policy for Der Spiegel",
    "Podemos hablar con el comité mañana",
    "Can you order halal options for the team offsite?",
    "We need halal and vegetarian options for the event",
    "Our canteen serves halal food",
    "Responses stay anonymous",
    "Keep Survey Responses Anonymous",
    "Is a member of Anonymous, the hacker collective",
    "Las respuestas son anónimas",
    "Is an oncologist",
    "Я на учёте в налоговой",
    "My husband does the school run on Tuesdays",
    "I'm Maria and my husband Marcus does the school run",
    "Will my husband like it?",
    "Casado com o trabalho, não tenho tempo",
    "Sou casada com o Rafael",
    "Je suis mariée avec mon mari",
]


@pytest.mark.unit
@pytest.mark.parametrize(("category", "text"), ROUND_FIVE + ROUND_SIX, ids=lambda v: v[:40])
def test_round_five_and_six_statements_are_flagged(category, text):
    assert category in special_categories(text)
    assert f"[{category} redacted]" in redact_special(text)


@pytest.mark.unit
@pytest.mark.parametrize("text", ROUND_FIVE_ORDINARY + ROUND_SIX_ORDINARY)
def test_round_five_and_six_lookalikes_pass(text):
    assert special_categories(text) == []


def _regional(text: str) -> str:
    return "".join(chr(0x1F1E6 + ord(c) - ord("a")) if "a" <= c <= "z" else c for c in text.lower())


# Stated in disguised letters: found through the folding the instruction screen reads (fold.py)
DISGUISED = [
    ("health", "I have ᴅɪᴀʙᴇᴛᴇꜱ"),
    ("sexuality", "Is 🅶🅰🆈"),
    ("gender_identity", "Is " + _regional("transgender")),
    ("health", "I have dіabetes"),  # a Cyrillic і
    ("religion", "Ιs a devout Catholic"),  # a Greek Ι
    ("health", "I have d i a b e t e s"),
    ("criminal_record", "Has a c-r-i-m-i-n-a-l r-e-c-o-r-d"),
    ("health", ".. / .... .- ...- . / -.. .. .- -... . - . ..."),
    ("health", "setebaid evah I"),
    ("health", "Je souffre de ᴅᴇᴘʀᴇꜱꜱɪᴏɴ"),  # a language matched without accents
    ("sexuality", "Ich bin 🅢🅒🅗🅦🅤🅛"),  # one matched with them
]


@pytest.mark.unit
@pytest.mark.parametrize(("category", "text"), DISGUISED, ids=lambda v: ascii(v)[:40])
def test_a_statement_in_disguised_letters_is_flagged(category, text):
    assert category in special_categories(text)


@pytest.mark.unit
def test_soft_hyphens_and_enclosed_letters_stay_read():
    assert special_categories("I have dia\u00adbetes") == ["health"]
    assert special_categories("Is a member of the ⓛⓐⓑⓞⓤⓡ ⓟⓐⓡⓣⓨ") == ["political_opinion"]


@pytest.mark.unit
@pytest.mark.parametrize(
    "text",
    ["Loves Paris 🇫🇷 and Tokyo 🇯🇵 🎉", "Writes ∑ᵢ xᵢ² ≤ ∫₀¹ f(x) dx in notes", "Ich bin schwül heute",
     "Spells his name J-O-H-N", "Live à Montréal, aime la crème brûlée", "Живу в Москве", "我住在上海"],
    ids=lambda t: ascii(t)[:30],
)  # fmt: skip
def test_emoji_math_accents_and_other_scripts_state_nothing(text):
    assert special_categories(text) == []


@pytest.mark.unit
@pytest.mark.parametrize("text", ORDINARY + ORDINARY_BY_LANGUAGE)
def test_accommodations_jobs_and_lookalikes_pass(text):
    assert special_categories(text) == []
    assert redact_special(text) == text


@pytest.mark.unit
@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        (
            "I have type 2 diabetes so I keep snacks at my desk",
            "[health redacted] so I keep snacks at my desk",
        ),
        (
            "I'm dyslexic, so please keep sentences short.",
            "[health redacted], so please keep sentences short.",
        ),
        (
            "I work in Lyon. Je suis enceinte. Call me after 5.",
            "I work in Lyon. [health redacted]. Call me after 5.",
        ),
        ("I'm half Korean and half Irish.", "[ethnic_origin redacted] and [ethnic_origin redacted]."),
        ("Is of Korean and Irish descent.", "[ethnic_origin redacted]."),  # across clauses: the sentence goes
        ("我是穆斯林。我喜欢编程。", "[religion redacted]。我喜欢编程。"),
        ("Şeker hastasıyım ve öğleden sonra atıştırırım.", "[health redacted] ve öğleden sonra atıştırırım."),
        (
            "Jestem w ciąży, więc proszę o krótkie spotkania.",
            "[health redacted], więc proszę o krótkie spotkania.",
        ),
        (
            "Ik ben zwanger, dus graag korte vergaderingen.",
            "[health redacted], dus graag korte vergaderingen.",
        ),
        (
            "Είμαι έγκυος, οπότε προτιμώ σύντομες συναντήσεις.",
            "[health redacted], οπότε προτιμώ σύντομες συναντήσεις.",
        ),
        ("मुझे मधुमेह है, इसलिए मैं डेस्क पर नाश्ता रखता हूँ।", "[health redacted], इसलिए मैं डेस्क पर नाश्ता रखता हूँ।"),
        ("أنا صائم، لذلك أفضل الاجتماعات الصباحية.", "[religion redacted]، لذلك أفضل الاجتماعات الصباحية."),
        ("저는 당뇨가 있어요. 회의는 오후로 잡아주세요.", "[health redacted]. 회의는 오후로 잡아주세요."),
        ("ฉันเป็นเบาหวาน ช่วยจองร้านให้หน่อย", "[health redacted]"),  # no spaces between words: the sentence goes
        (
            "Attends a weekly recovery group, so no Thursday dinners.",
            "[health redacted], so no Thursday dinners.",
        ),
        ("Prefers short sentences", "Prefers short sentences"),
    ],
)
def test_redaction_keeps_what_states_no_category(text, redacted):
    assert redact_special(text) == redacted


@pytest.mark.unit
def test_the_gathered_alternation_matches_where_the_plain_one_does():
    """_matchers() writes each category's phrases out and gathers them by their first letters (special.py):
    over every statement and ordinary text here, it matches where the plain alternation of the phrases does."""
    table = tomllib.loads(TABLE.read_text(encoding="utf-8"))
    plain: dict[tuple[str, bool, bool], dict[str, list[str]]] = {}
    for spec in table.values():
        group = plain.setdefault((spec["script"], spec["strip_accents"], spec["word_boundaries"]), {})
        macros = spec.get("macros", {})
        for category, patterns in spec["categories"].items():
            group.setdefault(category, []).extend(
                special._folded_pattern(
                    re.sub(r"\{([a-z_]+)\}", lambda m, macros=macros: macros[m[1]], p), spec["strip_accents"]
                )
                for p in patterns
            )
    texts = [t for ts in STATED.values() for t in ts] + [t for ts in STATED_IN_ENGLISH.values() for t in ts]
    texts += ORDINARY + ORDINARY_BY_LANGUAGE + OFFLINE_STATED
    for key, by_category in special._matchers().items():
        bounded = key[2]
        forms = [special.forms(text, key[0], key[1]) for text in texts]
        for category, gathered in by_category.items():
            union = "|".join(f"(?:{p})" for p in plain[key][category])
            reference = re.compile(
                rf"(?<![{special._IN_WORD}])(?:{union})(?![{special._IN_WORD}])" if bounded else union
            )
            for text, folded in zip(texts, forms, strict=True):
                assert [bool(gathered.search(f)) for f in folded] == [
                    bool(reference.search(f)) for f in folded
                ], (
                    category,
                    text,
                )


@pytest.mark.unit
@pytest.mark.parametrize(
    ("pattern", "alternatives"),
    [
        ("(?:is|was) deaf|blind", ["is deaf", "was deaf", "blind"]),
        ("(?:a|b)?c", ["(?:a|b)?c"]),  # a repeated group stays
        ("x[|)]y|(?:p(?:q|r))s", ["x[|)]y", "p(?:q|r)s"]),  # only a leading group is written out
    ],
)
def test_phrases_are_written_out(pattern, alternatives):
    assert [w for a in special._top_level(pattern) for w in special._written_out(a)] == alternatives


def proposal(content: str, quote: str) -> Proposal:
    message = SourceMessage("c1", "1", quote, datetime.now(UTC))
    return Proposal(
        "create", content, normalize_content(content), "contextual", "personal", (Cite(message, quote),)
    )


MESSAGE = "I have type 2 diabetes so I keep snacks at my desk"


@pytest.mark.unit
def test_screen_skips_a_special_category_and_redacts_it_from_quotes_unless_the_deployment_keeps_them():
    candidates = [proposal("Has type 2 diabetes", MESSAGE), proposal("Keeps snacks at their desk", MESSAGE)]
    skipped = screen(candidates, [], keep_special=False)
    assert skipped.counts == {"skipped_special": 1}
    assert [(p.content, p.evidence[0].quote) for p in skipped.proposals] == [
        ("Keeps snacks at their desk", "[health redacted] so I keep snacks at my desk")
    ]
    kept = screen(candidates, [], keep_special=True)
    assert not kept.rejected and [p.evidence[0].quote for p in kept.proposals] == [MESSAGE, MESSAGE]


# English statements the offline model (a demo and the tests' default model) turns into signals
OFFLINE_STATED = [
    "I am pregnant with my second child", "I am a Muslim and pray five times a day", "I have a criminal record",
    "I use my fingerprint to unlock everything", "I am transgender", "I vote Republican", "I am a union member",
    "I have dyslexia", "I am deaf", "I have ADHD", "I am Catholic", "I have depression", "I take antidepressants",
    "I am Jewish", "I have epilepsy", "I am an atheist", "I am autistic", "I am a lesbian", "I am non-binary",
    "I support the Green Party", "I have cancer", "I carry the BRCA1 gene", "I'm a trade union rep",
    "I go to church every Sunday", "I'm a recovering alcoholic", "I have a disability",
    "I have type 1 diabetes, so I check my blood sugar before long meetings",
]  # fmt: skip


@pytest.mark.unit
def test_what_the_offline_model_makes_of_special_category_statements_is_flagged():
    contents = [
        a["content"] for text in OFFLINE_STATED for a in extract([Message("m1", text)], [], DEFAULT_KINDS)
    ]
    assert len(contents) >= 20  # the model does write them: the screen has to stop them
    assert [c for c in contents if not special_categories(c)] == []


def run(settings: Settings) -> dict:
    return asyncio.run(extract_signals(kind="manual", settings=settings))


def stored(conn, user: str) -> str:
    rows = conn.execute(
        "select s.content, e.quote, ev.after::text from signals.signals s "
        "left join signals.evidence e using (signal_id) left join signals.events ev using (signal_id) "
        "where s.user_id = %s",
        [user],
    ).fetchall()
    return " ".join(str(value) for row in rows for value in row)


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
@pytest.mark.parametrize("setting", ["skip", "keep"])
def test_a_special_category_is_not_stored_unless_the_deployment_keeps_them(
    conn, settings_with, scripted, setting
):
    settings = settings_with(special_categories=setting)
    create = {"action": "create", "tier": "contextual", "kind": "personal"}
    scripted.script = lambda p: json.dumps({"actions": [
        {**create, "content": "Has type 2 diabetes", "evidence": [{"message": "m1", "quote": MESSAGE}]},
        {**create, "content": "Keeps snacks at their desk", "evidence": [{"message": "m1", "quote": MESSAGE}]},
    ]})  # fmt: skip
    own_signals.add_signal(conn, settings, "dee", "Has coeliac disease", "personal")  # the user's own: kept
    load_conversations(conn, settings, conversation("d1", "dee", [("user", MESSAGE)]))
    summary = run(settings)
    signals = dict(
        conn.execute("select content, origin from signals.signals where user_id = 'dee'").fetchall()
    )
    (ledger,) = conn.execute("select actions from ops.runs where run_id = %s", [summary["run_id"]]).fetchone()
    quotes = {r[0] for r in conn.execute("select quote from signals.evidence")}
    if setting == "skip":
        assert signals == {"Keeps snacks at their desk": "inferred", "Has coeliac disease": "manual"}
        assert summary["actions"]["skipped_special"] == 1 and ledger["skipped_special"] == 1
        assert quotes == {"[health redacted] so I keep snacks at my desk"}
        assert "diabetes" not in stored(conn, "dee")
    else:
        assert signals == {
            "Has type 2 diabetes": "inferred",
            "Keeps snacks at their desk": "inferred",
            "Has coeliac disease": "manual",
        }
        assert "skipped_special" not in summary["actions"] and "skipped_special" not in ledger
        assert quotes == {MESSAGE}


@pytest.mark.db
@pytest.mark.flow
@pytest.mark.usefixtures("prefect_harness")
def test_the_offline_model_stores_no_special_category(conn, settings, scripted):
    benign = ["I work as a data engineer on the payments team.", "Please keep answers short."]
    load_conversations(
        conn, settings, conversation("o1", "ola", [("user", t) for t in [*OFFLINE_STATED, *benign]])
    )
    summary = run(settings)  # the scripted fixture answers as the offline model does
    contents = {r[0] for r in conn.execute("select content from signals.signals where user_id = 'ola'")}
    assert contents and all(not special_categories(c) for c in contents)
    assert "Works as a data engineer on the payments team" in contents
    assert summary["actions"]["skipped_special"] >= 20
    assert all(not special_categories(r[0]) for r in conn.execute("select quote from signals.evidence"))


# Round seven (the development controls of hostile_dev9): a job that works with a category is not the category
ROUND_SEVEN = [
    ("health", "Has been on chemo since March"),
    ("health", "Finished chemotherapy last spring"),
    ("criminal_record", "Checks in with a probation officer every other Tuesday at 9"),
    ("trade_union", "Our union's collective bargaining team meets Monday"),
]
ROUND_SEVEN_ORDINARY = [
    "Works as a hospital pharmacist verifying chemotherapy orders",
    "Hired by the company as lead negotiator in collective bargaining with the union",
    "Works as a court probation officer supervising about 40 people",
]


@pytest.mark.unit
@pytest.mark.parametrize(("category", "text"), ROUND_SEVEN, ids=lambda v: v[:40])
def test_round_seven_statements_are_flagged(category, text):
    assert category in special_categories(text)


@pytest.mark.unit
@pytest.mark.parametrize("text", ROUND_SEVEN_ORDINARY)
def test_round_seven_jobs_pass(text):
    assert special_categories(text) == []
