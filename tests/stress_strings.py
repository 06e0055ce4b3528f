"""A deterministic stress set for tokenizer parity: more than 2000 strings, made in code.

`stress_strings()` returns the same list on every machine and every run (a fixed seed,
no reading of files that could change). The strings are built family by family, each a
known way to break a tokenizer or its pre-tokenizer regex:

- scripts and languages: greetings and sentences in 40+ scripts, plus random "words"
  drawn from each script's letters;
- emoji: single, skin tones, ZWJ families, flags, keycaps, variation selectors;
- combining marks: decomposed accents, stacked marks, marks with no base;
- code: Python, JavaScript, C, HTML, JSON, SQL, shell, regex, LaTeX;
- whitespace: runs of spaces, tabs, \\r\\n, \\r, \\n, NBSP, ideographic space, line and
  paragraph separators, in every short combination with words around them;
- digits: long digit strings, groups and separators, non-ASCII digits;
- contractions: 's 't 're 've 'm 'll 'd in lower, upper and mixed case, with straight
  and curly apostrophes, after words, spaces and digits;
- unusual Unicode: controls, private use, noncharacters, BOM, bidi marks, astral
  letters, tag characters, the last code point;
- random mixes of all of the above.

Unpaired surrogates are not in this set (they are not text); `SURROGATE_STRINGS` holds
the ones the parity suite checks are rejected.

>>> len(stress_strings()) >= 2000
True
>>> stress_strings() == stress_strings()
True
"""
from __future__ import annotations

import itertools
import random
from functools import lru_cache

__all__ = ["stress_strings", "families", "SURROGATE_STRINGS"]

SEED = 20240604

SENTENCES = (
    "The quick brown fox jumps over the lazy dog.",
    "Guten Morgen! Die Bibliothek öffnet heute um 9:30 Uhr.",
    "Bonjour ! La bibliothèque ouvre aujourd'hui à 9 h 30.",
    "¡Buenos días! ¿Qué tal? Hoy la biblioteca abre a las 9:30.",
    "Português: ação, coração, pão e lições.",
    "Polski: zażółć gęślą jaźń.",
    "Čeština: Příliš žluťoučký kůň úpěl ďábelské ódy.",
    "Türkçe: Pijamalı hasta yağız şoföre çabucak güvendi. İstanbul ıIiİ",
    "Tiếng Việt: Tôi có thể ăn thủy tinh mà không hại gì.",
    "Ελληνικά: Καλημέρα! Η βιβλιοθήκη ανοίγει σήμερα στις 9:30.",
    "Русский: Доброе утро! Съешь же ещё этих мягких французских булок.",
    "Українська: Ґанок, їжак, європейський.",
    "Српски: Љубазни фењерџија чађавог лица.",
    "العربية: صباح الخير! تفتح المكتبة اليوم في الساعة ٩:٣٠.",
    "עברית: בוקר טוב! הספרייה נפתחת היום.",
    "فارسی: صبح بخیر! کتابخانه امروز باز است.",
    "اردو: صبح بخیر! آج لائبریری کھلی ہے۔",
    "हिन्दी: सुप्रभात! आज पुस्तकालय 9:30 बजे खुलेगा।",
    "বাংলা: সুপ্রভাত! আজ গ্রন্থাগার খোলা।",
    "தமிழ்: காலை வணக்கம்! நூலகம் திறந்திருக்கிறது.",
    "తెలుగు: శుభోదయం! గ్రంథాలయం తెరిచి ఉంది.",
    "ಕನ್ನಡ: ಶುಭೋದಯ! ಗ್ರಂಥಾಲಯ ತೆರೆದಿದೆ.",
    "മലയാളം: സുപ്രഭാതം! ഗ്രന്ഥശാല തുറന്നിരിക്കുന്നു.",
    "ગુજરાતી: સુપ્રભાત! પુસ્તકાલય ખુલ્લું છે.",
    "ਪੰਜਾਬੀ: ਸ਼ੁਭ ਸਵੇਰ! ਲਾਇਬ੍ਰੇਰੀ ਖੁੱਲ੍ਹੀ ਹੈ।",
    "සිංහල: සුභ උදෑසනක්!",
    "ไทย: สวัสดีตอนเช้า ห้องสมุดเปิดวันนี้",
    "ລາວ: ສະບາຍດີຕອນເຊົ້າ",
    "ខ្មែរ: អរុណសួស្តី! បណ្ណាល័យបើកថ្ងៃនេះ។",
    "မြန်မာ: မင်္ဂလာနံနက်ခင်းပါ",
    "བོད་ཡིག: བཀྲ་ཤིས་བདེ་ལེགས།",
    "中文：早上好！图书馆今天九点半开门。",
    "繁體中文：早安！圖書館今天九點半開門。",
    "日本語：おはようございます！図書館は今日9時30分に開きます。",
    "カタカナ：コンピューター、ｶﾀｶﾅ（半角）",
    "한국어: 좋은 아침입니다! 오늘 도서관은 9시 30분에 문을 엽니다.",
    "ქართული: დილა მშვიდობისა!",
    "Հայերեն: Բարի լույս!",
    "አማርኛ: እንደምን አደሩ!",
    "ᏣᎳᎩ: ᎣᏏᏲ",
    "ᠮᠣᠩᠭᠣᠯ: ᠰᠠᠶᠢᠨ",
    "ᐃᓄᒃᑎᑐᑦ: ᐅᓪᓛᒃᑯᑦ",
    "ߒߞߏ: ߌ ߣߌ ߛߐ߯ߡߊ߫",
    "Ꭰ Ꮳ Ᏹ",
    "Yorùbá: Ẹ káàárọ̀! Ìwé kíkà.",
    "Kiswahili: Habari za asubuhi!",
    "Íslenska: Góðan daginn! Þetta er æðislegt.",
    "Gàidhlig: Madainn mhath!",
    "Esperanto: Ĉiuĵaŭde ŝi manĝas ĥaoson.",
)

# Letters of each script, for random "words".
SCRIPT_RANGES = {
    "latin": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "latin_ext": "àáâãäåæçèéêëìíîïðñòóôõöøùúûüýþÿĀāĂăĄąĆćČčĎďĐđĒēĘęĚěĞğĦħĪīİıĲĳĹĺŁłŃńŇňŐőŒœŘřŚśŠšŢţŤťŮůŰűŸŹźŻżŽžſẞß",
    "greek": "αβγδεζηθικλμνξοπρστυφχψωςΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩάέήίόύώϊϋΐΰ",
    "cyrillic": "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯіїєґў",
    "arabic": "ابتثجحخدذرزسشصضطظعغفقكلمنهويءآأؤإئةى",
    "hebrew": "אבגדהוזחטיכלמנסעפצקרשתךםןףץ",
    "devanagari": "अआइईउऊऋएऐओऔकखगघङचछजझञटठडढणतथदधनपफबभमयरलवशषसहािीुूृेैोौंःँ्",
    "thai": "กขคฆงจฉชซฌญฎฏฐฑฒณดตถทธนบปผฝพฟภมยรลวศษสหฬอฮะัาำิีึืุูเแโใไ่้๊๋",
    "hangul": "가나다라마바사아자차카타파하각난닫랄맘밥삿앙잦찿캌탙팦핳한국어글",
    "hiragana": "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをんがぎぐげご",
    "katakana": "アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワヲンガギグゲゴー",
    "cjk": "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长",
    "georgian": "აბგდევზთიკლმნოპჟრსტუფქღყშჩცძწჭხჯჰ",
    "armenian": "աբգդեզէըթժիլխծկհձղճմյնշոչպջռսվտրցւփքօֆ",
    "ethiopic": "ሀሁሂሃሄህሆለሉሊላሌልሎመሙሚማሜምሞ",
    "math_alnum": "𝐀𝐁𝐂𝐚𝐛𝐜𝔄𝔅𝔞𝔟𝕬𝕭𝖆𝖇𝘈𝘉𝙰𝙱𝚊𝚋𝟎𝟏𝟐",
    "fullwidth": "ＡＢＣａｂｃ０１２！？＃",
}

EMOJI = (
    "😀", "😂", "🥹", "👍", "👍🏻", "👍🏽", "👍🏿", "❤️", "❤", "☀️", "📚", "🙂", "🤖", "🧩",
    "👨‍👩‍👧‍👦", "👩‍💻", "🧑🏽‍🚀", "🏳️‍🌈", "🏴‍☠️", "👁️‍🗨️", "❤️‍🔥", "🧔🏻‍♂️", "👩🏾‍🤝‍👨🏼",
    "🇺🇸", "🇯🇵", "🇺🇳", "🇪🇺", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "1️⃣", "#️⃣", "*️⃣", "©️", "™️", "↔️",
    "🫠", "🫶🏽", "🪿", "🐈‍⬛", "🐻‍❄️", "\u200d", "\ufe0f",
)

COMBINING = ("\u0300", "\u0301", "\u0302", "\u0303", "\u0308", "\u030a", "\u0323", "\u0327",
             "\u0331", "\u0336", "\u0338", "\u034f", "\u0361", "\u20dd", "\u0e31", "\u093f",
             "\u05b7", "\u064e", "\u302a", "\u1ab0")

CODE = (
    "def f(x):\n    return x ** 2  # square\n",
    "for (let i = 0; i < n; i++) { console.log(`i=${i}`); }",
    "#include <stdio.h>\nint main(void) {\n\tprintf(\"%d\\n\", 42);\n\treturn 0;\n}\n",
    "<img src=x onerror=alert(1)><script>window.__pwned=1</script>",
    "<div class=\"a\" id='b'>&amp; &lt;tag&gt; &#x1F600;</div>",
    '{"key": [1, 2.5, -3e10, true, null], "nested": {"a": "b\\n"}}',
    "SELECT name, COUNT(*) FROM users WHERE id IN (1,2,3) GROUP BY name;",
    "grep -rE '^[a-z]+$' ./src | xargs -I{} sh -c 'echo {}' 2>&1 >/dev/null",
    r"^(?:[a-z0-9!#$%&'*+/=?^_`{|}~-]+)@(?:\[(?:\d{1,3}\.){3}\d{1,3}\])$",
    "\\begin{equation} E = mc^2 \\quad \\int_0^\\infty e^{-x^2}\\,dx \\end{equation}",
    "    if x:\n        y = [i for i in range(10) if i % 2 == 0]\n    else:\n        pass\n",
    "class Foo(Bar):\n\t\"\"\"Doc.\"\"\"\n\tdef __init__(self): super().__init__()\n",
    "fn main() -> Result<(), Box<dyn Error>> { let v: Vec<u8> = vec![0xFF; 16]; Ok(()) }",
    "x=1;y=2;z=x+y;print(z)//comment/*block*/",
    "camelCaseIdentifier snake_case_identifier SCREAMING_CASE kebab-case PascalCase",
    "getHTTPResponseCode XMLHttpRequest iPhone eBay McDonald's O'Neill",
    "https://example.com/path/to/page?query=1&b=two#frag",
    "user@example.com 192.168.0.1 ::1 2001:db8::ff00:42:8329",
    "```python\nprint('hi')\n```\n",
    "a_b__c___d____e",
    "////////////////////////////////////////",
    "======== ******** -------- ________",
    "\t\t\tindented\n\t\t\t\tmore\n",
    "¯\\_(ツ)_/¯ (╯°□°)╯︵ ┻━┻",
    "...!!!???,,,;;;:::",
    "'''\"\"\"```~~~",
)

WHITESPACE = (" ", "  ", "   ", "\t", "\n", "\r\n", "\r", "\n\n", "\r\r", "\n\r", " \n", "\n ",
              "\u00a0", "\u3000", "\u2028", "\u2029", "\x0b", "\x0c", "\x85", "\u2003", "\u200b",
              "\t \t", "    \n    ")

CONTRACTION_SUFFIXES = ("s", "t", "re", "ve", "m", "ll", "d")
APOSTROPHES = ("'", "’")

UNUSUAL = (
    "\x00", "\x01", "\x07", "\x1b[31m", "\x7f", "\x80", "\x9f", "\ufeff", "\ufffe", "\uffff",
    "\ufffd", "\ue000", "\uf8ff", "\U000f0000", "\U0010ffff", "\U0010fffd", "\u200e", "\u200f",
    "\u202e", "\u2066", "\u00ad", "\u2060", "\U000e0041", "\U000e007f", "\u0378", "\U0001fffe",
    "\u1d00", "\u02b0", "\u2160", "\u00b2", "\u00bd", "\u0660", "\u09e6", "\uff10",
    "\U0001d7d8", "\u2070", "\u3007", "\u0f33", "ǅ", "ǈ", "ᾈ", "ﬁ", "Å", "Ω", "K", "ß", "ẞ",
)


def _words(rng: random.Random, alphabet: str, n: int) -> list[str]:
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 9))) for _ in range(n)]


def _languages(rng: random.Random) -> list[str]:
    out = list(SENTENCES)
    out += [s.upper() for s in SENTENCES] + [s.lower() for s in SENTENCES]
    out += [a + " " + b for a, b in zip(SENTENCES, SENTENCES[1:])]
    out += ["\n".join(SENTENCES[i : i + 5]) for i in range(0, len(SENTENCES), 5)]
    for name, alphabet in SCRIPT_RANGES.items():
        for _ in range(12):
            sep = rng.choice((" ", "  ", ", ", "\n", "", "-", "_"))
            out.append(sep.join(_words(rng, alphabet, rng.randint(1, 8))))
    return out


def _emoji(rng: random.Random) -> list[str]:
    out = list(EMOJI)
    out += [e * 3 for e in EMOJI]
    out += ["a" + e + "b" for e in EMOJI] + [" " + e + " " for e in EMOJI]
    for _ in range(120):
        parts = [rng.choice(EMOJI) for _ in range(rng.randint(2, 6))]
        glue = rng.choice(("", " ", "\u200d", "word", "\n"))
        out.append(glue.join(parts))
    return out


def _combining(rng: random.Random) -> list[str]:
    out = []
    for mark in COMBINING:
        out += [mark, "e" + mark, "E" + mark + mark, " " + mark + "x", "1" + mark, mark * 5]
    for _ in range(80):
        base = rng.choice("aeiouAEIOUnNcCйßא가")
        out.append("".join(base + "".join(rng.choice(COMBINING) for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(1, 6))))
    zalgo = "".join(ch + "".join(COMBINING[(i * 7 + j) % len(COMBINING)] for j in range(6)) for i, ch in enumerate("zalgo text"))
    out += [zalgo, "cafe\u0301 café", "\u1100\u1161\u11a8 각", "n\u0303o ño"]
    return out


def _code(rng: random.Random) -> list[str]:
    out = list(CODE)
    out += [c.replace("\n", "\r\n") for c in CODE] + [c.replace("    ", "\t") for c in CODE]
    for _ in range(60):
        out.append("".join(rng.choice(CODE)[rng.randint(0, 10) :][: rng.randint(5, 60)] for _ in range(3)))
    return out


def _whitespace(rng: random.Random) -> list[str]:
    out = []
    for a, b in itertools.product(WHITESPACE, repeat=2):
        out.append(a + b)
        out.append("x" + a + "y" + b + "z")
    for ws in WHITESPACE:
        out += [ws + "word", "word" + ws, ws + "123" + ws, ws + "!" + ws + "?", ws * 7]
    for _ in range(120):
        out.append("".join(rng.choice(WHITESPACE) + rng.choice(("a", "Hello", "123", "!!", "é", "日本", "", "'s")) for _ in range(rng.randint(1, 10))))
    return out


def _digits(rng: random.Random) -> list[str]:
    out = ["".join(str((i * 7 + k) % 10) for k in range(i)) for i in range(1, 70)]
    out += [str(10**i) for i in range(0, 40)] + [str(rng.getrandbits(200))]
    for _ in range(100):
        n = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 30)))
        out.append(rng.choice(("{}", " {}", "x{}", "{}.{}", "{},{}", "-{}", "${} USD", "{}%", "+1 {}", "v{}.{}.{}", "{}e-{}")).replace("{}", n))
    out += ["١٢٣٤٥٦٧٨٩٠", "१२३४५", "０１２３４５６７８９", "①②③", "Ⅻ ⅷ", "¹²³", "½ ¾", "𝟙𝟚𝟛", "12,345,678.90", "1 000 000", "1'000'000"]
    return out


def _contractions(rng: random.Random) -> list[str]:
    out = []
    for apo, suf in itertools.product(APOSTROPHES, CONTRACTION_SUFFIXES):
        for s in (suf, suf.upper(), suf.capitalize()):
            c = apo + s
            out += [c, "it" + c, "IT" + c, " " + c, "x " + c + " y", "1" + c, c + c, "'" + c, "he" + c + "n't"]
    out += ["I'm", "I'M", "don't", "DON'T", "Don'T", "we'll", "WE'LL", "We'Ll", "they've", "THEY'VE",
            "she'd", "SHE'D", "you're", "YOU'RE", "it's", "IT'S", "Let's go", "LET'S GO", "rock 'n' roll",
            "'tis", "'TWAS", "o'clock", "O'CLOCK", "y'all'd've", "Y'ALL'D'VE", "the dogs' bones", "'''s",
            "l'homme", "L'HOMME", "dell'arte", "can’t", "CAN’T", "it’s", "IT’S"]
    words = ("I", "you", "we", "they", "he", "she", "it", "that", "there", "who")
    for _ in range(100):
        w = rng.choice(words)
        w = rng.choice((w, w.upper(), w.capitalize()))
        suf = rng.choice(CONTRACTION_SUFFIXES)
        suf = rng.choice((suf, suf.upper(), suf[0].upper() + suf[1:]))
        out.append(w + rng.choice(APOSTROPHES) + suf + rng.choice((" ", "", ".", "\n", "x")))
    return out


def _unusual(rng: random.Random) -> list[str]:
    out = list(UNUSUAL)
    out += ["a" + u + "b" for u in UNUSUAL] + [" " + u for u in UNUSUAL] + [u + "1" for u in UNUSUAL]
    for _ in range(80):
        out.append("".join(rng.choice(UNUSUAL) for _ in range(rng.randint(2, 6))))
    for _ in range(100):
        cp = rng.randrange(0x110000)
        if 0xD800 <= cp <= 0xDFFF:
            continue
        out.append(chr(cp) + rng.choice(("", " ", "a", "1", chr(cp))))
    out += ["", " ", "\n", "a", "<|endoftext|>", "<|endoftext|><|endoftext|>", "<|fim_prefix|>x<|fim_suffix|>",
            "<|endofprompt|>", "<|endoftext", "|endoftext|>", "<| endoftext |>", "x<|endoftext|>y"]
    return out


def _mixes(rng: random.Random, pool: list[str]) -> list[str]:
    out = []
    for _ in range(400):
        parts = [rng.choice(pool) for _ in range(rng.randint(2, 5))]
        out.append(rng.choice(("", " ", "\n", "\r\n", "\t")).join(parts))
    # A few long ones (several kB), to exercise caching across pieces.
    for _ in range(6):
        out.append(" ".join(rng.choice(pool) for _ in range(300)))
    return out


@lru_cache(maxsize=1)
def families() -> dict[str, tuple[str, ...]]:
    """The stress set by family: name -> strings (deterministic)."""
    rng = random.Random(SEED)
    fams = {
        "languages": _languages(rng),
        "emoji": _emoji(rng),
        "combining": _combining(rng),
        "code": _code(rng),
        "whitespace": _whitespace(rng),
        "digits": _digits(rng),
        "contractions": _contractions(rng),
        "unusual": _unusual(rng),
    }
    pool = [s for strings in fams.values() for s in strings]
    fams["mixes"] = _mixes(rng, pool)
    return {name: tuple(strings) for name, strings in fams.items()}


@lru_cache(maxsize=1)
def _all() -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for strings in families().values():
        for s in strings:
            seen.setdefault(s, None)
    return tuple(seen)


def stress_strings() -> list[str]:
    """Every stress string once, in family order."""
    return list(_all())


SURROGATE_STRINGS = (
    "\ud800",
    "\udfff",
    "abc\ud83d",
    "\ude00xyz",
    "emoji half: \ud83d and more",
    "\udc00\ud800",  # reversed pair: both unpaired
    "ok 😀 then \ud83d",
)
