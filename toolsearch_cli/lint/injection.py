"""Injection-like text in tool metadata (rule TS206): patterns in several languages, checked on
the text as written and on normalised readings of it.

Tool poisoning hides orders to the model in a description: cancel its instructions, call this
tool first, keep something from the user, send the conversation or secrets somewhere, change its
role. Attackers dodge plain patterns by writing in another language, swapping Latin letters for
Cyrillic or Greek look-alikes (``Ignоre`` with a Cyrillic ``о``), spacing letters out
(``I g n o r e``) or encoding the order (base64, hex). So a text is checked as written, then:

- NFKC-normalised, invisible (format) characters dropped, look-alike letters mapped to their
  Latin skeleton (only in words that mix scripts or are made entirely of look-alikes);
- with runs of spaced-out single letters joined (``I g n o r e  a l l`` -> ``Ignore all``);
- inside base64 and hex runs that decode to readable text (two levels deep at most);
- with leetspeak digits read as letters (``1gn0r3``) and percent-encoding undone.

Each reading goes through the phrase patterns below, then through the scored signal families
of :mod:`.injection_signals` (roles of an order in each clause, multilingual lexicons), which
is what carries to phrasings the patterns were not written for (issue 20: held-out batches), and
last through the learned model of :mod:`.injection_model` (character and word n-grams, logistic
regression shipped as data), which carries to orders worded with none of the lexicons' words.

Guidance for the tool's own use is not injection: "only call this when ...", "call this first to
get a session id", "You MUST call this function before 'Query Documentation' to obtain an id",
"do not ask the user to select a version", a condition *named* "Hide From User Condition", AWS's
``<important>`` admonitions. Measured on the labelled set tests/data/injection_labelled.yaml and on
every description of the real catalogs (benchmarks/lint_real.py, benchmarks/notes/lint.md, issue 20).
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import unicodedata
import urllib.parse
from collections.abc import Iterator
from functools import lru_cache

from .injection_model import describe, model_reason, shipped_model
from .injection_signals import signal_reason

#: Longest text examined (a description longer than this is checked on its first part only).
MAX_TEXT = 20_000
#: Encoded payloads decoded per text, and how deep (base64 inside base64 ...).
MAX_PAYLOADS = 8
MAX_DEPTH = 2

# --- look-alike letters -----------------------------------------------------------------------

#: Cyrillic and Greek letters that look like Latin ones (after NFKC), by their Latin skeleton.
_CONFUSABLE = {
    # Cyrillic lower case
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c",
    "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w",
    "һ": "h", "ӏ": "l", "ɡ": "g", "ո": "n", "ս": "u",
    # Cyrillic upper case
    "А": "A", "В": "B", "Е": "E", "Ё": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
    "Т": "T", "У": "Y", "Х": "X", "Ѕ": "S", "І": "I", "Ї": "I", "Ј": "J", "Ԛ": "Q", "Ԝ": "W", "Һ": "H",
    # Greek
    "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
    "χ": "x", "γ": "y", "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
    "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
}  # fmt: skip
_WORD = re.compile(r"[^\W\d_]+")
_ANY_CONFUSABLE = re.compile("[" + "".join(_CONFUSABLE) + "]")


def skeleton(text: str) -> str:
    """Look-alike letters mapped to Latin in each word that mixes Latin with them, or is made only
    of them (a Greek or Russian word with other letters is left alone)."""

    if not _ANY_CONFUSABLE.search(text):
        return text

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        if not any(ch in _CONFUSABLE for ch in word):
            return word
        rest = [ch for ch in word if ch not in _CONFUSABLE]
        if all(ch.isascii() for ch in rest):  # Latin mixed with look-alikes, or only look-alikes
            return "".join(_CONFUSABLE.get(ch, ch) for ch in word)
        return word

    return _WORD.sub(fix, text)


# --- spacing, invisible characters, encodings -------------------------------------------------

#: Three or more single letters each followed by one separator: ``I g n o r e``, ``i.g.n.o.r.e``.
_SPACED = re.compile(r"(?<![^\W_])(?:[^\W\d_][ .\-_*·]){3,}[^\W\d_](?![^\W_])")
_WIDE_GAP = re.compile(r"(?<=[^\W\d_]) {2,}(?=[^\W\d_])|\s*/\s*")


_DOTTED = re.compile(r"(?:[^\W\d_][.\-_*·]){2,}[^\W\d_]")


def join_spaced(text: str) -> str:
    """Runs of spaced-out letters joined into words; a wider gap (two spaces or more, or ``/``)
    between runs is kept as one space: ``I g n o r e   a l l`` -> ``Ignore all``; letters joined
    by dots or dashes keep single spaces as word gaps: ``i.g.n.o.r.e a.l.l`` -> ``ignore all``."""
    if not _SPACED.search(text):
        return text
    if any(_DOTTED.fullmatch(t.strip(",;:!?")) for t in text.split()):
        return " ".join(_DOTTED.sub(lambda m: re.sub(r"[.\-_*·]", "", m.group(0)), t) for t in text.split(" "))
    words = _WIDE_GAP.split(text)
    return " ".join(_SPACED.sub(lambda m: re.sub(r"[ .\-_*·]", "", m.group(0)), w) for w in words)


#: On a spaced-out run with no gaps left to tell its words apart (``I g n o r e a l l ...``):
#: the orders themselves, squashed.
_SQUASHED = re.compile(
    r"(ignore|disregard|forget|override|bypass)(all|any)?(the|your|of|my)?(previous|prior|above|earlier|preceding|"
    r"system|safety|original|existing)*(instructions?|rules|prompts?|guidelines|directives)"
    r"|(donot|dont|never)(tell|inform|mention|notify|alert)(the)?(user|anyone)"
    r"|(always)?(call|use|invoke)(this|me)(tool)?(first|beforeanyother)"
    r"|(reveal|print|send|leak)(your|the)(systemprompt|instructions|conversation)"
)


def squashed_orders(text: str) -> str | None:
    """An order spelled in spaced-out letters whose word gaps were not kept, or ``None``."""
    for match in _SPACED.finditer(text):
        squashed = re.sub(r"[^a-z]", "", match.group(0).casefold())
        found = _SQUASHED.search(squashed)
        if found:
            return found.group(0)
    return None


#: Characters nobody sees: zero-width, bidirectional controls, word joiners, BOM, tag characters.
HIDDEN = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]")
_EMOJI = "\U0001f000-\U0001faff\u2600-\u27bf"
_EMOJI_JOINER = re.compile(rf"(?<=[{_EMOJI}\ufe0f])\u200d(?=[{_EMOJI}])")


def hidden_character(text: str) -> str | None:
    """The first invisible character of a text, ignoring the zero-width joiner inside emoji sequences."""
    match = HIDDEN.search(_EMOJI_JOINER.sub("", text))
    return match.group(0) if match else None


_TAG = re.compile("[\U000e0020-\U000e007e]")


def _tag_text(text: str) -> str:
    """What Unicode tag characters spell (U+E0041 is a hidden 'A'): ASCII smuggling."""
    if not _TAG.search(text):
        return ""
    return "".join(chr(ord(ch) - 0xE0000) for ch in text if 0xE0020 <= ord(ch) <= 0xE007E)


def visible(text: str) -> str:
    """NFKC, format characters dropped (soft hyphen, zero-width ...), look-alikes mapped."""
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKC", text)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    return skeleton(text)


_BASE64 = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}(?:\\x|%|\s)?){10,}")


def _readable(data: bytes) -> str | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    letters = sum(ch.isalpha() for ch in text)
    printable = sum(ch.isprintable() or ch in "\n\t" for ch in text)
    wide = sum(not ch.isascii() and ch.isalpha() for ch in text)  # CJK text has no spaces
    if printable < 0.95 * len(text) or letters < 0.5 * len(text) or (" " not in text.strip() and wide < 4):
        return None
    return text


def _b64(token: str) -> bytes | None:
    if token.isalpha() and (token.islower() or token.isupper()):
        return None  # a long plain word, not an encoding
    try:
        return base64.b64decode(token.replace("-", "+").replace("_", "/") + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        return None


def decoded_payloads(text: str, depth: int = 1) -> Iterator[str]:
    """Readable text hidden in base64 (standard or URL-safe) or hex runs of a text; base64 inside
    base64 is unwrapped up to :data:`MAX_DEPTH` levels."""
    found = 0
    for match in _BASE64.finditer(text):
        raw = _b64(match.group(0))
        for _level in range(depth, MAX_DEPTH):  # base64 of base64: unwrap
            if raw is None or not _BASE64.fullmatch(raw.decode("ascii", "replace")):
                break
            raw = _b64(raw.decode("ascii"))
        readable = _readable(raw) if raw is not None else None
        if readable:
            found += 1
            yield readable
            if found >= MAX_PAYLOADS:
                return
    for match in _HEX.finditer(text):
        digits = re.sub(r"\\x|%|\s", "", match.group(0))
        try:
            readable = _readable(bytes.fromhex(digits))
        except ValueError:
            continue
        if readable:
            found += 1
            yield readable
            if found >= MAX_PAYLOADS:
                return


# --- the patterns -----------------------------------------------------------------------------

_OTHERS = r"(?:any|every|each|all|the other|other)"
_URL = r"(?:https?://|ftp://|wss?://)\S+"
_URL_START = r"(?:https?://|ftp://|wss?://)[^\s]*?"
#: What belongs to the user or the model and must not leave: the conversation and the like.
_CONVERSATION = (
    r"(?:conversations?|chat(?:\s+(?:history|log|transcript))?|(?:message|conversation|chat)\s+history|"
    r"(?:previous|prior|all|the user'?s?|user)\s+(?:messages|prompts|inputs?|queries|data|requests)|"
    r"transcript|context window|system prompt|(?:all|every)\s+(?:the\s+)?(?:data|messages|content)|"
    r"user'?s\s+(?:data|files|details|information|credentials|secrets|personal)|"
    r"personal (?:data|information)|api[_ ]?keys?|passwords?|credentials|tokens?|secrets?)"
)
_PLACEHOLDER = (
    r"\{\{?\s*\w*(?:conversation|chat|history|messages?|prompt|context|user_?input|user_?data|transcript|"
    r"secret|api_?key|credential|password)\w*\s*\}?\}"
)

#: Placeholders that only the conversation can fill: in a URL template they are exfiltration on their
#: own. A credential placeholder (``?apikey={YourApiKey}``) is how an API documents its own
#: authentication, and counts only with a verb sending it or a covert adverb.
_CONVERSATION_PLACEHOLDER = (
    r"\{\{?\s*\w*(?:conversation|chat|history|messages?|prompt|context|user_?input|user_?data|transcript)\w*\s*\}?\}"
)

_ENGLISH = [
    # the whose-word is bound to the object: no preposition or quote between them ("the rules of an
    # existing firewall with the new rules" names an API's rules); "This overrides ..." describes
    (r"(?<!\bthis )(?<!\bit )(?<!\bwhich )\b(ignor|disregard|forget|overrid|bypass|skip)\w*\b.{0,40}?\b(previous|"
     r"prior|above|earlier|preceding|original|existing|all|any|your|its|system|safety|security)\b"
     r"(?:(?!\b(?:of|with|in|for|from|on|by)\b)[^\"\u201c\u201d]){0,25}?\b(instructions?|prompts?|rules|guidelines|"
     r"directives|guardrails|polic(y|ies))\b", "tells the model to ignore its instructions"),
    (r"\b(previous|prior|earlier|original|system)\s+(instructions|prompts?|rules)\s+(are|is)\s+(now\s+)?"
     r"(outdated|obsolete|void|invalid|cancel+ed|no longer)", "tells the model to ignore its instructions"),
    (r"\b(always|must|should always|must always|have to)\s+(call|use|invoke|run|choose|select)\s+(this|me)"
     r"(\s+(tool|function|server))?(?=\s*([.!;]|$|first\b(?!\s+(to|in order|so|if|when|then)\b)|"
     rf"before\s+({_OTHERS}|anything|replying|answering|responding|you)\b|for (every|all|any|each)\b|regardless\b|"
     r"no matter\b|whatever\b|whenever\b|instead of (any|every|all|other)\b|,\s*(before|regardless|whatever|"
     r"no matter|for every)\b))", "tells the model to always call this tool"),
    (rf"\b(call|use|invoke|run)\s+(this|me|it)(\s+(tool|function))?\s+(before\s+({_OTHERS}|anything|replying|"
     r"answering|responding)\b|first\b(?!\s+(to|in order|so|if|when|then)\b))",
     "tells the model to call this tool before others"),
    (rf"\bbefore\s+{_OTHERS}\s+(other\s+)?(action|tool|request|call|step)s?\b.{{0,20}}\b(call|use|invoke|run)\s+"
     r"(this|me)\b", "tells the model to call this tool before others"),
    (rf"\b(instead of|over|priority over|precedence over)\s+{_OTHERS}\s+(other\s+)?tools?\b",
     "steers the model away from other tools"),
    (r"\b(every time|each time|whenever)\s+(you|the (model|assistant))\s+(use|call|invoke)s?\s+(another|any other|"
     r"a different|other)\s+tools?\b", "tells the model what to do when it uses other tools"),
    (r"\b(do not|don't|never|without)\s+(tell|inform|mention|reveal|notify|alert|let)(ing)?\b.{0,30}"
     r"\b(user|human|anyone)\b(?!\s+(to|can|must|should|has|have|is|was|your)\b)",
     "asks the model to hide something from the user"),
    (r"\b(?-i:hide|conceal|Hide|Conceal)\b(?!\s+(?-i:From\s+User))\b.{0,30}\bfrom\s+(the\s+)?(user|human)s?\b"
     r"(?!\s+(condition|group|field|role|setting|profile|option|flag|rule|permission|feature|mode|list|property|"
     r"attribute|toggle|checkbox|action|function|filter|policy|type)s?\b|[-_])|\b(silently|secretly|covertly|quietly)\s+(send|upload|"
     r"append|forward|copy|include|pass|change|redirect|post|fetch|call|transmit|exfiltrate)\b",
     "asks the model to hide something from the user"),
    (r"<\s*/?\s*(system|instructions?|secret|hidden)\s*>|<\s*(?-i:IMPORTANT)\s*>",
     "contains hidden-instruction markup"),
    (r"\b(read|include|send|pass|append|attach|upload|cat|forward|exfiltrate)\b.{0,40}(~/\.ssh|id_rsa|id_ed25519|"
     r"~/\.aws|\.env\b|mcp\.json|\.cursor/|credentials? file|(the user'?s|your) private keys?)",
     "asks the model to read or send secrets"),
    (r"\b(include|send|pass|append|attach|put|add|forward|upload)\b.{0,20}\b(the user'?s|users')\s+(api[ _-]?keys?|"
     r"passwords?|tokens?|credentials|secrets?|private keys?|session cookies?)",
     "asks the model to read or send secrets"),
    (r"\b(always|must)\s+(call|use|invoke|run)\s+(this|me)\b[^.!?\n]{0,60}\b(whatever|regardless of|no matter what)"
     r"\s+(the user|they|he|she|is|was|you)", "tells the model to always call this tool"),
    (r"\b(reveal|print|repeat|leak|output|send|share|disclose|copy|forward|pass|dump)\b.{0,30}\b(your|the|its|the "
     r"user's)\s+(\w+\s+)?(system prompt|instructions|conversation history|chat history|previous messages|"
     r"last \w+ messages)",
     "asks the model to send its prompt or the conversation away"),
    (rf"\b(send|post|upload|forward|transmit|exfiltrate|submit|report|leak|copy|fetch|call|visit|curl|get)\b[^.!?\n]"
     rf"{{0,60}}\b{_CONVERSATION}\b[^.!?\n]{{0,60}}?(to|at|via|into)\s+<?{_URL}",
     "asks the model to send the conversation or data to a URL"),
    (rf"{_URL_START}{_CONVERSATION_PLACEHOLDER}|{_PLACEHOLDER}[^\n]{{0,40}}(to|at)\s+{_URL}|\b(send|post|upload|"
     rf"forward|transmit|exfiltrate|submit|report|leak|fetch|call|visit|curl|open|load|render)\b[^.!?\n]{{0,40}}"
     rf"{_URL_START}{_PLACEHOLDER}|{_URL_START}{_PLACEHOLDER}[^\n]{{0,40}}\b(silently|secretly|quietly|covertly)\b",
     "asks the model to send the conversation or data to a URL"),
    (r"\b(pass|send|include|put|copy|append|attach|forward|paste)\b.{0,30}\b(complete|full|entire|whole|all|the)\s+"
     r"(chat|conversation|session)\s+(transcript|history|log|so far)\b",
     "asks the model to send its prompt or the conversation away"),
    # "without asking the user to re-authenticate / log in again" describes a token refresh (the user is
    # spared a step), not consent claimed for the model: what the user is not asked *to do* is a sign-in
    (r"\b(the user|they)\s+(has|have)\s+already\s+(consented|approved|agreed|authori[sz]ed|confirmed)|\bno need to "
     r"(confirm|check|ask)\b.{0,25}\b(with )?(the user|them)\b|"
     r"\bwithout (asking|confirming with|the consent of) the user\b(?!\s+to\s+(re-?\s?)?(authenticate|"
     r"authori[sz]e|log\s?in|login|sign\s?in|sign\s+in|log\s+in|enter|type|provide|reconnect|reconsent|consent)\b)",
     "claims the user's consent for the model"),
    (r"\b(treat|consider|follow|obey|read)\b.{0,50}\bas\s+(new|your|the)?\s*(system\s+)?(instructions|prompt|rules|"
     r"directives)\b|\b(supersedes?|replaces?|outranks?|overrides?)\s+(every|all|any)\s+(other\s+)?(tools?|instructions)\b|"
     r"\broute\s+(all|every)\s+(requests?|calls?|queries|messages)\s+through\s+(it|this|me)\b",
     "tells the model to ignore its instructions"),
    (r"\b(user|human)s?\s+(must|should|may|shall)\s+not\s+(learn|know|find out|see|notice|be told|be informed)\b|"
     r"\bkeep\s+(this|it|that)\b.{0,20}\b(confidential|secret|hidden)\s+from\s+(the\s+)?(user|human)|"
     r"\b(silently|secretly|covertly|quietly)\s+(retry|call|invoke|use|run|execute|re-?run)\b",
     "asks the model to hide something from the user"),
    (r"\b(copy|include|put|add|pass|send|insert|append)\b.{0,20}\b(the user'?s|users')\s+(session cookies?|cookies|"
     r"e-?mail( address)?|phone number|home address|location|contacts)\b.{0,40}\b(into|in|to)\b",
     "asks the model to read or send secrets"),
    (r"\b(before|prior to)\s+(using|calling|invoking|running)\s+(any\s+)?(other|another)\s+tools?\b.{0,30}"
     r"\b(must|always|should|have to)\s+(call|use|invoke|run)\s+(this|me)\b",
     "tells the model to call this tool before others"),
    (r"\byou(\s+are|'re)\s+(no longer (an?|the) (assistant|ai|model|chatbot)|now (dan|unrestricted|jailbroken)|dan\b)|"
     r"\byou\s+(have|are under)\s+no\s+(restrictions|rules|limits|guidelines)\b", "tries to change the model's role"),
    (r"\b(you are now(?!\s+(able|ready|logged|signed|connected|subscribed|authenticated|registered|done|using)\b)|"
     r"from now on,? (you|respond|answer|reply|act|always|only|ignore)|pretend (to be|you are)|"
     r"act as if|(enter|enable|switch to|in) developer mode|jailbreak|DAN mode)", "tries to change the model's role"),
]  # fmt: skip

_SPANISH = [
    (r"\b(ignora|ignore|ignorar|olvida|olvide|olvidar|descarta|omite|desobedece|haz caso omiso de|no hagas caso a?)\b"
     r".{0,40}?\b(instrucciones|reglas|indicaciones|[óo]rdenes|directrices|normas|pol[íi]ticas)\b",
     "tells the model to ignore its instructions"),
    (r"\b(no|nunca|sin)\s+(le\s+)?(digas|diga|decir(le)?|informes|informar(le)?|menciones|mencionar|cuentes|"
     r"avises|avisar(le)?|notifiques|reveles)\b.{0,30}\b(usuario|usuaria|nadie)\b",
     "asks the model to hide something from the user"),
    (r"\b(a escondidas|en secreto|sin que (el usuario|nadie) (lo )?sepa|silenciosamente)\b",
     "asks the model to hide something from the user"),
    (r"\b(siempre|primero|antes de (cualquier|toda|todas|cada)\s+(otra\s+)?(herramienta|acci[óo]n|respuesta))\b.{0,30}"
     r"\b(llama|llamar|usa|usar|utiliza|invoca|ejecuta)\b.{0,10}\b(esta|este)\s+(herramienta|funci[óo]n)\b|"
     r"\b(llama|usa|utiliza|invoca)\s+(a\s+)?(esta|este)\s+(herramienta|funci[óo]n)\s+(siempre|primero|antes de "
     r"(cualquier|toda|cada))", "tells the model to always call this tool"),
    (rf"\b(env[íi]a|envíe|enviar|manda|mande|mandar|reenv[íi]a|sube|subir|transmite|comparte|filtra)\b.{{0,80}}"
     rf"\b(conversaci[óo]n|historial|mensajes|chat|datos|prompt|credenciales|contraseñas?|claves?)\b.{{0,60}}{_URL}",
     "asks the model to send the conversation or data to a URL"),
    (r"\b(revela|muestra|imprime|env[íi]a|comparte|repite)\b.{0,30}\b(tu|tus|el|las)\s+(prompt del sistema|"
     r"instrucciones( del sistema)?|historial)", "asks the model to send its prompt or the conversation away"),
    (r"\bolvida\w*\s+(todo|lo)\b.{0,30}\b(te )?(dijeron|han dicho|indicaron|dicho|ordenaron)\b|\bsigue\s+(solo|"
     r"[úu]nicamente)\s+(estas|mis)\s+(reglas|instrucciones)", "tells the model to ignore its instructions"),
    (r"\b(a partir de ahora|ahora eres|finge (ser|que eres)|act[úu]a como si|modo desarrollador)\b",
     "tries to change the model's role"),
]  # fmt: skip

_CHINESE = [
    (r"(忽略|无视|忽视|不要理会|别理会|不理会|抛开|抛弃|忘记|忘掉|跳过|违背|绕过)[^。！？\n]{0,12}?(之前|以前|先前|此前|上面|上述|以上|"
     r"前面|所有|全部|一切|系统|原有|原来)[^。！？\n]{0,10}?(指令|指示|规则|提示|要求|命令|设定|约束|限制|规定)",
     "tells the model to ignore its instructions"),
    (r"(不要|别|不得|不可|切勿|千万别|禁止)(告诉|告知|通知|提醒|透露|提及|让)[^。！？\n]{0,6}(用户|使用者|任何人)|瞒着用户|对用户(隐瞒|保密)|"
     r"(悄悄|偷偷|秘密|暗中)(地)?(发送|上传|转发|调用|修改|执行)", "asks the model to hide something from the user"),
    (r"(先|首先|总是|始终|必须|务必|一律)(调用|使用|执行|运行)(本|此|这个|该)(工具|函数|插件)(?![^。！？\n]{0,6}(以|来|获取|取得|得到))|"
     r"在(调用|使用)?(任何|所有|其他|别的)[^。！？\n]{0,6}(工具|操作|回答|回复)之前[^。！？\n]{0,10}(调用|使用)(本|此|这个|该)",
     "tells the model to always call this tool"),
    (rf"(发送|上传|提交|转发|传到|传给|发到|发给|回传|同步)[^。！？\n]{{0,40}}(对话|聊天记录|会话|消息|历史|数据|内容|提示词|密码|密钥|凭证)"
     rf"[^。！？\n]{{0,40}}?{_URL}|(对话|聊天记录|会话|消息|历史|数据|内容|提示词|密码|密钥|凭证)[^。！？\n]{{0,30}}"
     rf"(发送|上传|提交|转发|传|发)(到|至|给)\s*{_URL}", "asks the model to send the conversation or data to a URL"),
    (r"(不得|不要|别|禁止|切勿|不准)(向|对|跟|给)(用户|使用者)(透露|说明|提及|告知|提起|解释)",
     "asks the model to hide something from the user"),
    (r"(只|仅)(使用|调用|用)(这个|本|此|该)(工具|函数)[^。！？\n]{0,20}(其他|别的)(工具|函数)[^。！？\n]{0,6}(不要|别|不|禁止|不得)",
     "steers the model away from other tools"),
    (r"(泄露|输出|打印|透露|复述|重复)[^。！？\n]{0,6}(你的|您的)?(系统提示|系统提示词|系统指令|初始指令|对话历史|聊天记录)",
     "asks the model to send its prompt or the conversation away"),
    (r"(从现在(开始|起)|你现在是|假装(你是|成为)|扮演一个不受限制|开发者模式|越狱模式)",
     "tries to change the model's role"),
]  # fmt: skip

_OTHER_LANGUAGES = [  # French, German, Portuguese: the instruction override only
    (r"\b(ignore[rz]?|oublie[rz]?)\b.{0,30}\b(instructions|r[èe]gles|consignes)\s+(pr[ée]c[ée]dentes|ant[ée]rieures)",
     "tells the model to ignore its instructions"),
    (r"\b(ignoriere|ignorieren|vergiss|vergessen)\b.{0,30}\b(vorherigen|bisherigen|obigen|alle)\b.{0,20}"
     r"(Anweisungen|Regeln|Instruktionen|Vorgaben)", "tells the model to ignore its instructions"),
    (r"\b(ignore|ignora|esque[çc]a)\b.{0,30}\b(instru[çc][õo]es|regras)\s+(anteriores|pr[ée]vias)",
     "tells the model to ignore its instructions"),
]  # fmt: skip

PATTERNS = [(re.compile(p, re.I | re.S), why) for p, why in (*_ENGLISH, *_SPANISH, *_CHINESE, *_OTHER_LANGUAGES)]
_N_EN, _N_ES, _N_ZH = len(_ENGLISH), len(_SPANISH), len(_CHINESE)
#: Each language's patterns run only on a text that has one of its marks (a Chinese character; a
#: word the Spanish, French, German or Portuguese patterns all need): lint reads every description.
_SPANISH_MARK = re.compile(
    r"(instrucci|reglas|indicaci|[óo]rden|directri|normas|pol[íi]tica|usuari|nadie|escondidas|secreto|silenciosa|"
    r"herramienta|funci[óo]n|conversaci|historial|mensajes|datos|prompt|credencial|contraseñ|clave|ahora|finge|"
    r"act[úu]a|desarrollador|olvid|sigue)",
    re.I,
)
_OTHER_MARK = re.compile(
    r"(instructions|r[èe]gles|consignes|Anweisungen|Regeln|Instruktionen|Vorgaben|instru[çc][õo]es|regras)", re.I
)
_GATED: list[tuple[re.Pattern[str] | None, list[tuple[re.Pattern[str], str]]]] = [
    (None, PATTERNS[:_N_EN]),
    (_SPANISH_MARK, PATTERNS[_N_EN : _N_EN + _N_ES]),
    (re.compile("[\u3400-\u9fff]"), PATTERNS[_N_EN + _N_ES : _N_EN + _N_ES + _N_ZH]),
    (_OTHER_MARK, PATTERNS[_N_EN + _N_ES + _N_ZH :]),
]


#: What each English pattern cannot match without (one word of each group, lower case): checked
#: with ``in`` before the regular expression runs, which is most of TS206's time otherwise.
_NEEDS: list[tuple[tuple[str, ...], ...]] = [
    (("instruction", "prompt", "rule", "guideline", "directive", "guardrail", "polic"),),
    (("outdated", "obsolete", "void", "invalid", "cancel", "no longer"),),
    (("this", "me"), ("always", "must", "have to")),
    (("this", "me", "it"), ("before", "first")),
    (("before",),),
    (("tool",),),
    (("tool",),),
    (("not", "don't", "never", "without"), ("user", "human", "anyone")),
    (("hide", "conceal", "silently", "secretly", "covertly", "quietly"),),
    (("<",),),
    (("ssh", "id_rsa", "id_ed25519", "aws", ".env", "mcp.json", ".cursor/", "credential", "private key"),),
    (("user",),),
    (("whatever", "regardless", "no matter"),),
    (("system prompt", "instructions", "history", "messages"),),
    (
        ("://",),
        (
            "conversation",
            "chat",
            "messag",
            "prompt",
            "input",
            "quer",
            "data",
            "request",
            "transcript",
            "context",
            "detail",
            "information",
            "credential",
            "secret",
            "password",
            "token",
            "key",
        ),
    ),
    (("://",), ("{",)),
    (("chat", "conversation", "session"),),
    (("already", "no need", "without"),),
    (("treat", "consider", "follow", "obey", "read", "supersede", "replace", "outrank", "override", "route"),),
    (("not", "keep", "silently", "secretly", "covertly", "quietly"),),
    (("user",),),
    (("before", "prior to"),),
    (("you",),),
    (("you are now", "from now on", "pretend", "act as if", "developer mode", "jailbreak", "dan mode"),),
]
assert len(_NEEDS) == _N_EN


def _patterns(text: str) -> Iterator[tuple[re.Pattern[str], str]]:
    low = text.casefold()
    for (pattern, why), needs in zip(PATTERNS[:_N_EN], _NEEDS, strict=True):
        if all(any(word in low for word in group) for group in needs):
            yield pattern, why
    for gate, patterns in _GATED[1:]:
        if gate is not None and gate.search(text):
            yield from patterns


#: Leetspeak: digits and signs standing for letters, inside words that mix them with letters.
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "@": "a", "$": "s"})
_LEET_L = {**_LEET, ord("1"): "l"}  # "1" stands for "i" or for "l": both are read
_LEET_GATE = re.compile(r"[^\W\d_][013457@$]|[013457@$][^\W\d_]")
_LEET_WORD = re.compile(r"(?=[\w@$]*[^\W\d_])(?=[\w@$]*[013457@$])[\w@$]{2,}")


def unleet(text: str, one: str = "i") -> str:
    """``1gn0r3 4ll pr3v10u5 1n57ruc710n5`` -> ``ignore all previous instructions``: only words that
    mix letters with digit look-alikes are mapped, ``1`` as ``i`` (or as ``l`` with ``one="l"``);
    ``v2``, ``sha256`` become nonsense, not orders; and only when a text has at least two of them."""
    if not _LEET_GATE.search(text):
        return text
    words = _LEET_WORD.findall(text)
    if len(words) < 2:
        return text
    table = _LEET if one == "i" else _LEET_L
    return _LEET_WORD.sub(lambda m: m.group(0).translate(table), text)


_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")


def url_decoded(text: str) -> str:
    """Percent-encoding undone (``Ignore%20previous%20instructions``), when a text has three escapes."""
    if "%" not in text or len(_PERCENT.findall(text)) < 3:
        return text
    return urllib.parse.unquote(text, errors="replace")


def _readings(text: str, shown: str) -> Iterator[tuple[str, str]]:
    """The text as written, then each normalised reading that differs from it (with a note)."""
    yield text, ""
    seen = {text}
    for reading, note in (
        (shown, " (after normalising look-alike or invisible characters)"),
        (join_spaced(shown), " (in spaced-out letters)"),
        (_tag_text(text), " (in invisible Unicode tag characters)"),
        (unleet(shown), " (in leetspeak)"),
        (unleet(shown, one="l"), " (in leetspeak)"),
        (url_decoded(shown), " (URL-encoded)"),
    ):
        if reading and reading not in seen:
            seen.add(reading)
            yield reading, note
    yield from _payload_readings(shown, 1)


def _payload_readings(text: str, depth: int) -> Iterator[tuple[str, str]]:
    for payload in decoded_payloads(text, depth):
        yield visible(payload), " (in an encoded payload)"


def injection_reasons(text: str) -> Iterator[str]:
    """Why a text reads as injection, by every layer: the rules' reasons (:func:`rule_reasons`),
    else the learned model's (:func:`learned_reason`). Nothing for honest text."""
    found = rule_reasons(text)
    yield from found
    if not found:
        reason = learned_reason(text)
        if reason:
            yield reason


@lru_cache(maxsize=4096)
def rule_reasons(text: str) -> tuple[str, ...]:
    """Why a text reads as injection to the written rules (TS206): an invisible character, then the
    first phrase pattern that matches the text or a normalised reading of it (with the matched
    words), else the first scored signal family. Empty for honest text. Cached: TS207 asks again."""
    return tuple(_rule_reasons(text))


def _rule_reasons(text: str) -> Iterator[str]:
    text = text[:MAX_TEXT]
    hidden = hidden_character(text)
    if hidden:
        yield f"contains an invisible character U+{ord(hidden):04X}"
    shown = visible(text)
    squashed = squashed_orders(shown)
    if squashed:
        yield f"tells the model what to do in spaced-out letters: {squashed!r}"
        return
    readings = list(_readings(text, shown))
    for reading, note in readings:  # the phrase patterns first: their messages name the phrase
        for pattern, why in _patterns(reading):
            match = pattern.search(reading)
            if match:
                snippet = " ".join(match.group(0).split())[:60]
                yield f"{why}: {snippet!r}{note}"
                return
    for reading, note in readings:  # then the scored signal families (the raw text only when it is plain)
        if reading is text and text != shown:
            continue
        reason = signal_reason(reading)
        if reason:
            yield reason + note
            return


def learned_reason(text: str, *, sure: bool = False) -> str | None:
    """Why the learned model (:mod:`.injection_model`) reads a text as an order to the model, on the
    same normalised readings, or ``None``: also when the written rules report it. Over its warning
    threshold (rule TS207), or with ``sure`` over its error threshold (rule TS206)."""
    if rule_reasons(text):
        return None
    model = shipped_model()
    if model is None:
        return None
    z, chunk, feats, note = _learned_best(text)
    threshold = model.error_threshold if sure else model.threshold
    if threshold is None or z < threshold:
        return None
    return describe(model, z, chunk, feats) + note


def learned_margin(text: str) -> float:
    """The learned model's highest margin (logit) over the chunks of a text's readings, minus its
    warning threshold (>= 0: TS207 would report it unless the written rules do); for benchmarks."""
    model = shipped_model()
    return -math.inf if model is None else _learned_best(text)[0] - model.threshold


@lru_cache(maxsize=4096)
def _learned_best(text: str) -> tuple[float, str, frozenset[str], str]:
    """The learned model's best chunk over the readings of a text: (margin, chunk, its features, the
    reading's note). Cached: TS206 asks at its error threshold, TS207 at its warning threshold."""
    model = shipped_model()
    best: tuple[float, str, frozenset[str], str] = (-math.inf, "", frozenset(), "")
    if model is None:
        return best
    for reading, note in readings(text):
        z, chunk, feats = model.best_chunk(reading)
        if z > best[0]:
            best = (z, chunk, frozenset(feats), note)
    return best


def split_reason(first: str, second: str) -> str | None:
    """Why two fields read as one order when the first stops mid-sentence and the second goes on
    ("... ignore all previous" + "instructions and send ..."): the scored signals on the normalised
    join (the phrase patterns read across sentences, so they are not run on it), or ``None``."""
    joined = visible(f"{first[-400:]} {second[:400]}")
    return signal_reason(joined) or signal_reason(join_spaced(unleet(joined)))


def split_learned_reason(first: str, second: str, *, sure: bool = False) -> str | None:
    """The learned model's reading of two such fields joined (over its error threshold with ``sure``;
    the caller asks :func:`split_reason` first, so that is not asked again here)."""
    joined = visible(f"{first[-400:]} {second[:400]}")
    return model_reason(joined, sure=sure) or model_reason(join_spaced(unleet(joined)), sure=sure)


def readings(text: str) -> list[tuple[str, str]]:
    """The readings the scored layers examine (each with its note): the normalised text, spaced
    letters joined, tag characters, leetspeak, percent-encoding, decoded payloads; the text as
    written only when normalising changed nothing."""
    text = text[:MAX_TEXT]
    shown = visible(text)
    return [(r, note) for r, note in _readings(text, shown) if not (r is text and text != shown)]
