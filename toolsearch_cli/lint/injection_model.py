"""A learned reading of injection-like text (rule TS206): a logistic regression over character
n-grams and word n-grams of a normalised text, shipped as data (``data/ts206_model.tsv.gz``) and
trained by ``benchmarks/ts206_train.py`` (deterministic; labelled positives in eight languages,
the held-out batches, written paraphrases by role; real tool descriptions as negatives).

Why: the word lexicons of :mod:`.injection_signals` found about half of the orders written after
each freeze (issue 20): an order said with new words slips through. Character n-grams carry across
inflections, scripts without spaces (Chinese, Japanese) and near-synonyms; word pairs carry the
shape of an order ("the user", "previous instructions", "to <url>").

A text is cut into chunks (each sentence or window of a long one, each pair of neighbouring
sentences) and each chunk is scored on its own: an order hidden in a long honest description is
judged on its own sentence. Only the standard library runs here (a dict of weights);
nothing is downloaded. The model's file is read once, on first use.
"""

from __future__ import annotations

import gzip
import itertools
import json
import math
import re
from collections.abc import Iterator
from functools import cache
from importlib import resources

from .injection_text import URL_OR_WWW, strip_marks, visible

#: Character n-gram sizes.
NGRAMS = (2, 3, 4, 5)
#: A sentence longer than this is scored in windows of this size (half overlapping).
WINDOW = 240
#: Two neighbouring sentences are scored together when their join is no longer than this.
PAIR = 320
#: A chunk's summed weights are divided by the square root of its number of features, at least
#: this many (a short chunk, "The user's bio.", would otherwise weigh its few n-grams too much).
NORM_FLOOR = 150
#: Chunks scored per text at most (a text is already cut at ``MAX_TEXT`` characters upstream).
MAX_CHUNKS = 400

_MAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_DIGIT = re.compile(r"\d")
_TOKEN = re.compile(r"[^\W_]+")
_SENTENCE = re.compile(r"(?<=[.!?;।؟؛])\s+|(?<=[。！？；])|\s*\n\s*")
#: Marks for the sinks an exfiltration needs, kept as words of their own.
URL_MARK, MAIL_MARK = "urlx", "mailx"
_WORD_FEATURE, _PAIR_FEATURE = "\x01", "\x02"
_MARKS = {URL_MARK: "<url>", MAIL_MARK: "<e-mail>"}


def normalise(text: str) -> str:
    """Case folded, accents dropped, URLs and e-mail addresses replaced by a mark, digits by 0,
    white space collapsed (the input is a reading already free of look-alikes and invisibles)."""
    text = URL_OR_WWW.sub(f" {URL_MARK} ", text)
    text = _MAIL.sub(f" {MAIL_MARK} ", text)
    text = text.casefold()
    if not text.isascii():
        text = strip_marks(text)
    return " ".join(_DIGIT.sub("0", text).split())


def features(norm: str) -> set[str]:
    """Character n-grams of a normalised text (with a space at each end), its words, its pairs
    of neighbouring words, and its cues (:func:`cue_features`)."""
    padded = f" {norm} "
    size = len(padded)
    found = {padded[i : i + n] for n in NGRAMS for i in range(size - n + 1)}
    words = _TOKEN.findall(norm)
    found.update(_WORD_FEATURE + w for w in words)
    found.update(f"{_PAIR_FEATURE}{a} {b}" for a, b in itertools.pairwise(words))
    found.update(cue_features(norm))
    return found


#: Cues shared by every language: what an order to the model speaks of, in many languages (stems,
#: matched at the start of a word in scripts with spaces, anywhere in Chinese, Japanese, Korean; a
#: stem ending in "$" is a whole word). A sentence gets a feature for each cue it holds and for each
#: pair of them ("assistant" with "hide", "user" with "secret"), so that what the model learns of
#: an English order carries to the same order in Italian or Polish. Changing this list changes
#: the features: the model must be retrained (``benchmarks/ts206_train.py``).
# fmt: off
CUES: dict[str, tuple[str, ...]] = {
    "ai": (
        "assistant", "chatbot", "llm", "language model", "ai$", "ai-", "agent", "copilot",
        "助手", "智能体", "模型", "人工智能", "asistente", "ia$", "modelo", "assistent", "ki$", "ki-", "modell",
        "modele", "アシスタント", "モデル", "エージェント", "ассистент", "ии$", "модел", "нейросет", "помощник",
        "assistente", "modello", "어시스턴트", "모델", "에이전트", "asystent", "yapay zeka", "asistan", "sztuczn",
    ),
    "you": (
        "you$", "your", "yourself", "你", "您", "tu$", "tus$", "usted", "dein", "dich$",
        "vous$", "votre", "tes$", "ton$", "あなた", "ты$", "тебе", "тебя", "твой", "твои", "вы$", "ваш",
        "voi$", "tuo$", "tua$", "tuoi", "você", "voce$", "당신", "jij$", "jouw", "je$", "ty$", "twoj", "sen$", "senin",
    ),
    "user": (
        "user", "end user", "customer", "the person", "human", "用户", "使用者", "客户", "usuario", "cliente",
        "nutzer", "benutzer", "kunde", "utilisateur", "client", "ユーザー", "顧客", "利用者", "пользовател",
        "клиент", "utente", "사용자", "고객", "gebruiker", "klant", "użytkownik", "kullanıcı", "müşteri",
    ),
    "secret": (
        "password", "passcode", "pin$", "secret", "credential", "token", "api key", "private key", "ssh",
        "cookie", "otp$", "cvv", "card number", "social security", "login details", ".env", "密码", "密钥",
        "令牌", "凭据", "凭证", "口令", "contrasena", "clave", "credencial", "passwort", "kennwort", "zugangsdaten",
        "geheim", "mot de passe", "identifiant", "パスワード", "暗証番号", "秘密鍵", "トークン", "認証情報", "пароль",
        "токен", "ключ", "учетн", "credenziali", "senha", "credenciais", "비밀번호", "토큰", "wachtwoord",
        "hasło", "şifre", "parola",
    ),
    "conversation": (
        "conversation", "chat", "dialog", "transcript", "history", "earlier turns", "prior turns",
        "previous messages", "对话", "会话", "聊天", "历史", "conversacion", "historial", "gesprach",
        "unterhaltung", "verlauf", "historique", "echanges", "会話", "チャット", "やり取り", "履歴", "разговор",
        "диалог", "переписк", "истори", "чат", "conversazione", "cronologia", "conversa", "대화", "gesprek",
        "rozmow", "konuşma", "sohbet",
    ),
    "hide": (
        "don't tell", "do not tell", "without telling", "not mention", "not inform", "to yourself", "leave out",
        "leave it out", "hide", "hidden", "conceal", "silently", "quietly", "secretly", "discreetly",
        "need to know", "needs to know", "need to hear", "has to know", "have to be told", "nothing the user",
        "不要告诉", "无需告知", "不必告诉", "不要提", "隐藏", "隐瞒", "悄悄", "偷偷", "没有必要知道", "不需要知道",
        "无需说明",
        "ocult", "sin avisar", "sin decir", "en silencio", "no tiene por que", "no informar", "verschweig",
        "verbirg", "verbergen", "unauffallig", "heimlich", "nichts davon", "nicht erwahn", "nicht informier",
        "ne pas informer", "sans le dire", "discretement", "cacher", "n'a pas a savoir", "n'informe pas",
        "知らせ", "伝えない", "隠", "こっそり", "知る必要", "не говори", "не сообща", "скрыва", "скрой", "незаметно",
        "тайно", "не нужно знать", "нужно знать", "nascond", "di nascosto", "bisogno di sapere", "senza dire",
        "esconder", "sem avisar", "precisa saber", "알 필요", "숨기", "몰래", "verberg", "hoeft niet te weten",
        "ukry", "nie musi wiedzieć", "gizle", "bilmesine gerek", "change the subject", "cambia de tema",
        "wechsle das thema", "changez de sujet", "смени тему", "cambia argomento", "话题",
    ),
    "send": (
        "send", "forward", "transmit", "upload", "copy", "copie", "attach", "paste", "include", "export",
        "mirror", "发送", "转发", "上传", "复制", "附上", "附在", "附加", "填入", "enviar", "envia", "reenvia", "copia",
        "adjunta",
        "senden", "sende", "weiterleit", "ubermitt", "kopier", "hange", "envoy", "transmet", "copier", "joindre",
        "joignez", "送信", "転送", "コピー", "添付", "отправ", "пересыл", "передав", "переда", "копир", "прилож",
        "invia", "inoltra", "allega", "anexa", "보내", "전송", "복사", "verstu", "kopieer", "wysyl", "kopiuj",
        "gönder", "kopyala",
    ),
    "other_tools": (
        "other tool", "another tool", "any tool", "every tool", "all tools", "other server", "other integration",
        "another integration", "其他工具", "别的工具", "任何工具", "其他服务器", "otras herramientas",
        "cualquier herramienta", "andere werkzeug", "anderen werkzeug", "andere tools", "anderen tools",
        "autres outils", "tout outil", "他のツール", "ほかのツール", "други", "любой инструмент", "altri strumenti",
        "qualsiasi strumento", "outras ferramentas", "다른 도구", "andere tool", "inne narzędzia", "diğer araç",
    ),
    "rules": (
        "instruction", "guideline", "guidance", "rules", "policy", "policies", "directive", "safeguard",
        "restriction", "limits", "system prompt", "prompt", "指令", "指示", "规则", "准则",
        "政策", "限制", "提示词", "instruccion", "normas", "reglas", "politica", "restriccion",
        "anweisung", "regeln", "richtlinie", "vorgaben", "beschrankung", "consigne", "regles", "politique",
        "ルール", "指針", "ポリシー", "制限", "プロンプト", "инструкци", "правил", "политик", "огранич",
        "указани", "istruzion", "regole", "indicazion", "restrizion", "instrucoes", "regras",
        "orientacoes", "지침", "규칙", "정책", "richtlijn", "regels", "wytyczn", "zasad", "talimat", "kural",
    ),
    "void": (
        "supersede", "replaced", "retired", "rescind", "revoked", "lifted", "expired", "void", "obsolete",
        "no longer", "do not apply", "does not apply", "no authority", "set aside", "disregard", "ignore",
        "forget", "override", "precedence", "取代", "作废", "失效", "不再", "取消", "废止", "忽略", "忘记", "搁置",
        "停止使用", "sustitu", "reemplaz", "sin efecto", "ya no", "retirad", "ignora", "olvida", "ersetzt",
        "aufgehoben", "ausser kraft", "nicht mehr", "ignorier", "vergiss", "beiseite", "remplace", "levee",
        "n'est plus", "ignore", "oublie", "ecart", "置き換え", "無効", "廃止", "無視", "忘れ", "脇に置", "замен",
        "отмен", "больше не", "игнорир", "забудь", "утратил", "sostitu", "ritirat", "non valg", "dimentica",
        "substitu", "대체", "무시", "폐지", "vervangen", "negeer", "zastąpion", "ignoruj", "geçersiz",
    ),
    "consent": (
        "consent", "authoris", "authoriz", "approv", "permission", "agreed", "sign-off", "signed off",
        "opted in", "waiver", "blanket", "同意", "授权", "批准", "许可", "consentimiento", "autoriz", "aprob",
        "permiso", "einwillig", "zustimm", "genehmig", "erlaubnis", "freigabe", "consentement", "autoris",
        "approuv", "承認", "許可", "соглас", "разрешени", "одобр", "consenso", "approvat", "permesso",
        "consentimento", "aprovad", "동의", "승인", "toestemming", "zgod", "onay", "izin",
    ),
    "no_confirm": (
        "without confirm", "without a confirm", "without asking", "without checking", "skip confirm",
        "no need to confirm", "confirmations are", "straight away", "无需确认", "不必确认", "不用确认",
        "sin confirm", "sin pregunt", "ohne ruckfrage", "ohne bestatigung", "sans confirmation", "sans demander",
        "確認なし", "確認せず", "без подтвержд", "senza conferma", "sem confirm", "확인 없이",
        "zonder bevestiging", "bez potwierdz", "onaysız",
    ),
    "always": (
        "always", "every time", "each time", "whenever", "regardless", "every reply", "each reply",
        "every answer", "each of your", "每次", "总是", "始终", "无论", "siempre", "cada vez", "immer", "jedes mal",
        "toujours", "chaque fois", "毎回", "常に", "いつも", "всегда", "каждый раз", "sempre", "ogni volta",
        "항상", "매번", "altijd", "zawsze", "her zaman", "daima",
    ),
    "money": (
        "payment", "transfer", "iban", "account number", "payee", "recipient", "bank", "card", "invoice",
        "付款", "支付", "转账", "收款", "银行", "pago", "transferencia", "beneficiar", "zahlung", "uberweisung",
        "empfanger", "paiement", "virement", "支払", "送金", "振込", "платеж", "перевод", "получател",
        "pagament", "bonifico", "결제", "송금", "betaling", "overboeking", "płatnoś", "przelew", "ödeme", "havale",
    ),
    "persona": (
        "you are now", "act as", "pretend", "persona", "identity", "from now on", "from here on", "play the part",
        "roleplay", "扮演", "身份", "从现在起", "从现在开始", "eres$", "actua como", "a partir de ahora", "du bist",
        "ab sofort", "ab jetzt", "tu es$", "desormais", "a partir de maintenant", "今から", "これから", "ты теперь",
        "отныне", "d'ora in poi", "a partir de agora", "이제부터", "vanaf nu", "od teraz",
    ),
    "deceive": (
        "tell the user", "tell them", "say that", "say the", "say it", "present$", "presented", "describe$", "even if",
        "even when", "even though", "whatever it says", "告诉用户", "说成", "即使", "dile", "aunque", "sag$",
        "auch wenn", "dites", "meme si", "伝え", "たとえ", "скажи", "даже если", "di'", "anche se", "diga",
        "mesmo que", "말하", "zeg$", "powiedz", "söyle",
    ),
}
#: Round 4 (issue 37): the same cues in Arabic, Hindi, Vietnamese, Indonesian, Swedish, Ukrainian,
#: Czech, Romanian, Persian and Greek (stems as above; accents are dropped by :func:`normalise`).
_CUES_4: dict[str, tuple[str, ...]] = {
    "ai": (
        "المساعد", "مساعد", "النموذج", "الذكاء الاصطناعي", "सहायक", "मॉडल", "एआई", "tro ly", "mo hinh",
        "asisten", "асистент", "помічник", "штучн", "asistent", "دستیار", "هوش مصنوعی", "βοηθ", "μοντελο",
    ),
    "you": ("أنت", "तुम", "आप", "kamu", "anda$", "ти$", "тобі", "твій", "tvuj", "εσυ"),
    "user": (
        "المستخدم", "مستخدم", "उपयोगकर्ता", "nguoi dung", "pengguna", "anvandar", "користувач", "uzivatel",
        "utilizator", "کاربر", "χρηστη",
    ),
    "secret": (
        "كلمة المرور", "كلمة السر", "مفاتيح", "مفتاح", "पासवर्ड", "कुंजी", "mat khau", "khoa api", "kata sandi",
        "kunci api", "losenord", "nyckel", "heslo", "hesl", "parol", "رمز عبور", "گذرواژه", "κωδικ",
    ),
    "conversation": (
        "المحادثة", "محادثة", "बातचीत", "tro chuyen", "hoi thoai", "percakapan", "riwayat", "konversation",
        "samtal", "historik", "розмов", "історі", "konverzac", "historii", "conversati", "istoric", "گفتگو",
        "συνομιλι", "ιστορικ",
    ),
    "hide": (
        "لا تخبر", "دون إعلام", "دون علم", "मत बता", "चुपचाप", "đừng nói", "lang le", "am tham",
        "jangan beri tahu", "diam-diam", "beratta inte", "tyst", "i hemlighet", "не кажи", "непомітно",
        "приховай", "nerikej", "potichu", "tajne", "nu-i spune", "nu spune", "نگو که", "نگویید", "پنهان",
        "μην πεις", "κρυφα",
    ),
    "send": (
        "أرسل", "ارسل", "انسخ", "भेज", "कॉपी", "hay gui", "gui cho", "gui toan bo", "sao chep",
        "kirim", "salin", "skicka", "kopiera",
        "надішли", "надсила", "скопіюй", "перешли", "posli", "odesl", "zkopiruj", "trimite", "copiaz",
        "بفرست", "ارسال", "στειλ", "αντεγραψ",
    ),
    "other_tools": (
        "أداة أخرى", "الأدوات الأخرى", "दूसरे टूल", "cong cu khac", "alat lain", "andra verktyg",
        "інші інструменти", "інших інструментів", "jine nastroje", "alte instrumente", "ابزارهای دیگر",
        "αλλα εργαλεια",
    ),
    "rules": (
        "التعليمات", "تعليمات", "السياسة", "निर्देश", "नियम", "huong dan", "quy tac", "instruksi", "aturan",
        "instruktion", "regler", "вказівк", "обмежен", "pokyn", "pravidl", "instructiun", "regulil",
        "دستورالعمل", "قوانین", "οδηγι", "κανον",
    ),
    "void": (
        "تجاهل", "لم تعد", "अनदेखा", "भूल जाओ", "bo qua", "khong con", "abaikan", "tidak berlaku", "lupakan",
        "ignorera", "bortse", "inte langre", "ігноруй", "більше не", "zapomen", "uz neplati", "uita",
        "نادیده", "αγνοησ", "ξεχασ",
    ),
    "consent": (
        "موافق", "وافق", "सहमति", "अनुमति", "đồng ý", "cho phep", "menyetujui", "setuju", "godkan", "samtyck",
        "погод", "дозвіл", "згод", "souhlas", "povolen", "aprob", "consimt", "موافقت", "اجازه", "συμφων",
        "εγκρ",
    ),
    "no_confirm": (
        "دون تأكيد", "بدون تأكيد", "لا حاجة لطلب", "पुष्टि मत", "बिना पुष्टि", "khong can hoi",
        "khong can xac nhan", "tanpa konfirmasi", "tidak perlu meminta", "utan bekraftelse", "behover inte be",
        "без підтвердж", "не питай", "bez potvrzeni", "nezadej", "fara confirmare", "nu cere", "بدون تأیید",
        "χωρις επιβεβαιωση", "μη ζητας",
    ),
    "always": (
        "دائما", "كل مرة", "हमेशा", "हर बार", "luon$", "moi lan", "selalu", "setiap kali", "alltid", "varje gang",
        "завжди", "щоразу", "vzdy", "pokazde", "mereu", "intotdeauna", "همیشه", "παντα", "καθε φορα",
    ),
    "money": (
        "تحويل", "الدفع", "भुगतान", "खाता", "thanh toan", "chuyen tien", "tai khoan", "pembayaran", "rekening",
        "betalning", "overforing", "оплат", "переказ", "рахун", "platb", "prevod", "plata", "پرداخت",
        "πληρωμ", "λογαριασμ",
    ),
    "persona": (
        "من الآن فصاعدا", "أنت الآن", "अब से", "tu gio", "tu bay gio", "mulai sekarang", "fran och med nu",
        "du ar nu", "відтепер", "тепер ти", "od ted", "de acum", "از این پس", "απο τωρα",
    ),
    "deceive": (
        "أخبر المستخدم", "حتى لو", "बताओ कि", "भले ही", "noi voi", "ngay ca khi", "katakan", "meskipun",
        "sag till", "aven om", "скажи", "навіть якщо", "rekni", "i kdyz", "spune-i", "chiar daca", "بگو",
        "حتی اگر", "πες", "ακομη κι αν",
    ),
}
#: Round 5 (issue 37): who an order is addressed to when it avoids "you" and "the assistant" (the
#: integration, the orchestrator, the calling system), the modality it is said in ("is expected",
#: "should"), skipping a step, an external party, long-term memory, disparaging or steering, a claimed
#: authority; and more stems of concealment, sending, secrets and personas. Blind batch 10's misses
#: were read for the kinds of wording they use (no phrase copied).
_CUES_5: dict[str, tuple[str, ...]] = {
    "integrator": (
        "integrat", "orchestrat", "downstream", "calling system", "caller", "client application",
        "host application", "any agent", "agents", "implementations", "integrador", "orquestador",
        "sistema que llama", "aufrufende", "orchestrier", "systeme appelant", "orchestrateur", "integracao",
        "orquestrador", "sistema chiamante", "orchestratore", "integrazione", "интеграци", "оркестратор",
        "вызывающ", "агент", "連携", "インテグレーション", "オーケストレーター", "呼び出し元", "呼び出し側", "集成",
        "编排", "调用方", "调用者", "接入方", "연동", "통합", "오케스트레이터", "호출하는 시스템", "호출 측",
        "integratie", "aanroepende", "integracj", "orkiestrator", "entegrasyon", "التكامل", "tich hop", "integrasi",
        "інтеграці", "integrac", "integrar", "یکپارچه", "ενσωματωσ",
    ),
    "modal": (
        "is expected", "are expected", "expected to", "should", "must", "is required", "are required",
        "it's helpful", "it is helpful", "is recommended", "correct behaviour", "correct behavior", "as required",
        "se espera", "debe", "lo correcto", "conviene", "hay que", "wird erwartet", "soll$", "sollen", "muss$",
        "mussen", "ist zu", "sind zu", "il convient", "doit", "doivent", "est attendu", "il faut", "deve",
        "devem", "espera-se", "e esperado", "e opportuno", "va incluso", "vanno", "si prevede", "должен",
        "должна", "должно", "должны", "следует", "ожидается", "нужно", "べき", "てください", "必要があ",
        "ことになって", "应该", "应当", "必须", "需要", "请", "해야", "하십시오", "주세요", "되어야", "moet",
        "verwacht", "powinien", "należy", "musi", "gerekir", "malı", "يجب", "चाहिए", "phai", "harus", "ska$",
        "bor$", "повинен", "має$", "trebuie", "باید", "πρεπει",
    ),
    "skip": (
        "skip", "skipped", "bypass", "omit", "dispens", "waived", "entfallt", "uberspring", "omettre",
        "pular", "saltar", "omitir", "saltare", "пропуска", "пропуст", "省略", "跳过", "スキップ", "생략",
        "건너뛰", "overslaan", "pomin", "atla", "تخطي", "छोड़", "bo qua", "lewati", "hoppa over",
        "preskoc", "sari peste", "رد کن", "παραλειψ",
    ),
    "external": (
        "external", "third party", "third-party", "partner", "webhook", "relay", "mirror", "outside",
        "externo", "terceros", "extern", "dritte", "externe", "tiers", "parceiro", "terceiros", "esterno",
        "terzi", "внешн", "сторонн", "партнер", "外部", "第三方", "合作方", "パートナー", "第三者", "외부",
        "파트너", "제3자", "zewnętrz", "harici", "خارجي", "बाहरी", "ben ngoai", "ben thu ba", "pihak ketiga",
        "зовнішн", "externi", "خارجی", "εξωτερικ",
    ),
    "memory": (
        "memory", "memories", "remember", "long-term", "long term", "future sessions", "future conversations",
        "later sessions", "memoria", "recuerda", "gedachtnis", "merke dir", "kunftige sitzung", "memoire",
        "souviens", "futures sessions", "lembre", "ricorda", "sessioni future", "памят", "запомни",
        "будущих сесси", "記憶", "覚えて", "今後のセッション", "以後の会話", "记住", "记忆", "长期", "以后的会话",
        "기억", "이후 대화", "geheugen", "onthoud", "pamiec", "zapamietaj", "hafıza", "bellek", "الذاكرة",
        "याद", "ghi nho", "ingat", "minne", "kom ihag", "запам'ят", "pamet", "memori", "حافظه", "μνημη",
    ),
    "steer": (
        "competitor", "competing", "rival", "breach", "scam", "fraud", "unreliable", "compromised",
        "impartial", "unbiased", "recommend only", "only recommend", "competencia", "competidor", "fraude",
        "imparcial", "konkurrent", "betrug", "datenleck", "unparteiisch", "concurrent", "fuite",
        "concorrent", "vazamento", "violazion", "frode", "конкурент", "мошенн", "утечк", "беспристраст",
        "競合", "他社", "詐欺", "漏洩", "中立", "竞争对手", "竞品", "欺诈", "泄露", "客观", "경쟁", "타사",
        "사기", "유출", "중립", "konkurencj", "oszust", "rakip", "dolandır", "منافس", "प्रतिस्पर्धी",
        "doi thu", "pesaing", "podvod", "concuren", "رقیب", "ανταγων",
    ),
    "authority": (
        "owner", "administrator", "admin", "operator", "legal team", "compliance", "security team",
        "account holder", "tenant", "titular", "propietario", "administrador", "kontoinhaber", "inhaber",
        "betreiber", "titulaire", "proprietaire", "operateur", "responsavel", "proprietario", "amministrat",
        "владелец", "администратор", "оператор", "所有者", "管理者", "オーナー", "运营方", "管理员",
        "소유자", "관리자", "운영자", "eigenaar", "beheerder", "właściciel", "sahibi", "yönetici",
        "المالك", "المسؤول", "मालिक", "व्यवस्थापक", "chu so huu", "quan tri", "pemilik", "ägare", "власник",
        "адміністратор", "vlastnik", "proprietar", "مالک", "مدیر", "ιδιοκτητ", "διαχειριστ",
    ),
    "hide": (
        "not be mentioned", "not mentioned", "not appear", "not relevant to the user", "not shown to",
        "without mentioning", "internal process", "internal behaviour", "internal behavior", "no need to mention",
        "no debe aparecer", "no mencion", "sin mencionar", "nicht erwahnt", "nicht erscheinen", "ohne zu erwahnen",
        "ne doit pas apparaitre", "sans mentionner", "nao deve aparecer", "nao mencion", "sem mencionar",
        "non deve comparire", "senza menzionare", "non menzion", "не упомина", "не должно появлят",
        "не сообщай", "触れない", "含めない", "言及しない", "明かさ", "不要提及", "不要包含", "无需提及", "不提",
        "언급하지", "안내되지", "포함하지", "알리지", "niet vermelden", "nie wspominaj", "bahsetme",
    ),
    "send": (
        "append", "appended", "post to", "posted to", "fill this", "mitgesend", "ubertragen", "transfer",
        "inviat", "отправля", "送られ", "送って", "上报", "回传", "전달",
    ),
    "secret": (
        "environment variable", "env var", "aws_", "database_url", "_key", "_secret", "id_rsa",
        "security code", "expiry date", "system instructions", "system message", "umgebungsvariable",
        "variable de entorno", "variable d'environnement", "variavel de ambiente", "variabile d'ambiente",
        "переменн окружени", "環境変数", "环境变量", "환경 변수", "セキュリティコード", "有効期限", "安全码",
        "보안 코드", "cvc",
    ),
    "persona": (
        "present itself as", "presents itself as", "introduce yourself as", "poses as", "se presenta como",
        "se apresenta como", "tritt als", "auftreten als", "se presente comme", "si presenta come",
        "представляется", "として振る舞", "として応対", "자처", "행세", "never admit", "nunca admit",
        "не признава", "承认自己", "mai ammett", "jamais admettre", "niemals zugeben",
    ),
    "deceive": (
        "as if", "as though", "como si", "als ob", "comme si", "como se", "come se", "как будто",
        "かのように", "好像", "처럼",
    ),
}
# fmt: on
for _cue, _stems in (*_CUES_4.items(), *_CUES_5.items()):
    CUES[_cue] = CUES.get(_cue, ()) + _stems
#: Prefix of a cue feature.
_CUE_FEATURE = "\x03"
#: A cue feature weighs this many times a character n-gram in a chunk's sum (it stands for a whole
#: phrase; the trainer scales it the same way, and the shipped weights hold the factor).
CUE_SCALE = 6.0


def _trie_pattern(stems: list[str]) -> str:
    """A regular expression matching any of ``stems`` (a stem ending in "$" ends a word), built as a
    trie: one branch per character, so its cost does not grow with the number of stems."""
    trie: dict[str, dict] = {}
    for stem in stems:
        node = trie
        for ch in stem.rstrip("$"):
            node = node.setdefault(ch, {})
        node["$" if stem.endswith("$") else ""] = {}

    def build(node: dict[str, dict]) -> str:
        alts = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch not in ("", "$")]
        alts += [r"\b"] if "$" in node else []
        alts += [""] if "" in node else []
        return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"

    return build(trie)


@cache
def _cue_pattern() -> tuple[re.Pattern[str], dict[str, str]]:
    """One pattern for every cue stem (normalised as the text is: through the look-alike mapping,
    case folding and accent dropping), matching at every position, and the cue of each stem."""

    of: dict[str, str] = {}
    for cue, stems in CUES.items():
        for stem in stems:
            norm = normalise(visible(stem.rstrip("$"))) + ("$" if stem.endswith("$") else "")
            of.setdefault(norm, cue)
    wordy = [k for k in of if k[:1].isalpha() and (k[:1].isascii() or "\u0400" <= k[:1] <= "\u04ff")]
    in_wordy = set(wordy)
    other = [k for k in of if k not in in_wordy]
    firsts = "".join(sorted({re.escape(k[0]) for k in other}))  # a class gates the other trie: 3x faster
    pattern = re.compile(rf"(?=(\b{_trie_pattern(wordy)}|(?=[{firsts}]){_trie_pattern(other)}))")
    return pattern, {k.rstrip("$"): c for k, c in of.items()}


def cue_features(norm: str) -> set[str]:
    """The cues of a normalised text (:data:`CUES`) and each pair of them, as features."""
    pattern, cue_of = _cue_pattern()
    cues = {cue_of[m] for m in pattern.findall(norm)}
    if URL_MARK in norm or MAIL_MARK in norm:
        cues.add("sink")
    found = {_CUE_FEATURE + c for c in cues}
    found.update(f"{_CUE_FEATURE}{a}+{b}" for a, b in itertools.combinations(sorted(cues), 2))
    return found


def units(text: str) -> list[str]:
    """A text's sentences; a sentence longer than :data:`WINDOW` as half-overlapping windows."""
    out: list[str] = []
    for sentence in _SENTENCE.split(text):
        sentence = sentence.strip()
        if len(sentence) <= WINDOW:
            out.append(sentence)
        else:
            step = WINDOW // 2
            out.extend(sentence[j : j + WINDOW] for j in range(0, len(sentence) - step, step))
    return [u for u in out if u][:MAX_CHUNKS]


def chunk_features(text: str) -> list[tuple[str, set[str]]]:
    """The pieces of a text scored on their own, with their features: each sentence (or window),
    each pair of neighbouring ones (the union of their features), and the whole text when it is
    short. Each sentence is featurised once."""
    parts = units(text)
    feats = [features(normalise(u)) for u in parts]
    out: dict[str, set[str]] = {}
    for i, (unit, f) in enumerate(zip(parts, feats, strict=True)):
        out.setdefault(unit, f)
        if i + 1 < len(parts) and len(unit) + len(parts[i + 1]) < PAIR:
            out.setdefault(f"{unit} {parts[i + 1]}", f | feats[i + 1])
    if 1 < len(parts) and len(text) <= PAIR:
        out.setdefault(" ".join(parts), set().union(*feats))
    return list(out.items())


def chunks(text: str) -> list[str]:
    """The pieces of a text scored on their own (see :func:`chunk_features`)."""
    return [c for c, _ in chunk_features(text)]


class Model:
    """Weights by feature, a bias and two decision thresholds (on the margin, the logit):
    ``threshold`` for a warning (rule TS207) and ``error_threshold`` for an error (rule TS206),
    the second set higher, where no real description came near it (``None``: the model never
    reports at error level)."""

    def __init__(
        self, weights: dict[str, float], bias: float, threshold: float, error_threshold: float | None = None
    ) -> None:
        self.weights = weights
        self.vocabulary = frozenset(weights)
        self.bias = bias
        self.threshold = threshold
        self.error_threshold = error_threshold

    def margin(self, feats: set[str] | frozenset[str]) -> float:
        if not feats:
            return self.bias
        known = feats & self.vocabulary
        return self.bias + sum(map(self.weights.__getitem__, known)) / math.sqrt(max(len(feats), NORM_FLOOR))

    def best_chunk(self, text: str) -> tuple[float, str, set[str]]:
        """The highest margin among a text's chunks (those of :func:`chunk_features`), the chunk
        and its features. Each sentence's weights are summed once; a pair of sentences is scored
        from its two sums less what they share, and its features are joined only when it wins."""
        parts = units(text)
        if not parts:
            return (-math.inf, "", set())
        weights, vocabulary, bias = self.weights, self.vocabulary, self.bias
        feats = [features(normalise(u)) for u in parts]
        known = [f & vocabulary for f in feats]
        sums = [sum(map(weights.__getitem__, k)) for k in known]
        best_z, best = -math.inf, (0, 0)
        for i, f in enumerate(feats):
            z = bias + sums[i] / math.sqrt(max(len(f), NORM_FLOOR))
            if z > best_z:
                best_z, best = z, (i, i)
            if i + 1 < len(parts) and len(parts[i]) + len(parts[i + 1]) < PAIR:
                g = feats[i + 1]
                shared = known[i] & known[i + 1]
                total = sums[i] + sums[i + 1] - sum(map(weights.__getitem__, shared))
                size = len(f) + len(g) - len(f & g)
                z = bias + total / math.sqrt(max(size, NORM_FLOOR))
                if z > best_z:
                    best_z, best = z, (i, i + 1)
        i, j = best
        chunk, chunk_feats = (parts[i], feats[i]) if i == j else (f"{parts[i]} {parts[j]}", feats[i] | feats[j])
        if 1 < len(parts) and len(text) <= PAIR:  # a short text is also scored whole
            whole = set().union(*feats)
            z = self.margin(whole)
            if z > best_z:
                best_z, chunk, chunk_feats = z, " ".join(parts), whole
        return best_z, chunk, chunk_feats

    def words_for(self, feats: set[str], top: int = 3) -> list[str]:
        """The words (or word pairs) of a chunk that weigh most towards injection."""
        scored = [
            (w, f[1:]) for f in feats if f[0] in (_WORD_FEATURE, _PAIR_FEATURE) and (w := self.weights.get(f, 0.0)) > 0
        ]
        if not scored:  # a script without spaces (Chinese, Japanese): its character n-grams
            scored = [
                (w, f.strip())
                for f in feats
                if f.strip() and f[0] != _CUE_FEATURE and (w := self.weights.get(f, 0.0)) > 0
            ]
        scored.sort(key=lambda s: (-s[0], s[1]))
        names: list[str] = []
        for _, name in scored:
            if not any(name in other or other in name for other in names):
                names.append(name)
            if len(names) == top:
                break
        return [" ".join(_MARKS.get(w, w) for w in n.split(" ")) for n in names]


MODEL_FILE = "ts206_model.tsv.gz"


def read_model(data: bytes) -> Model:
    """A model from its file: a JSON header line (bias, threshold), then ``weight<TAB>feature`` lines."""
    lines = gzip.decompress(data).decode("utf-8").split("\n")
    header = json.loads(lines[0])
    weights: dict[str, float] = {}
    for line in lines[1:]:
        if line:
            weight, feature = line.split("\t", 1)
            weights[feature] = float(weight)
    error = header.get("error_threshold")
    return Model(weights, float(header["bias"]), float(header["threshold"]), None if error is None else float(error))


def write_model(model: Model, extra: dict[str, object]) -> bytes:
    fields: dict[str, object] = {"bias": model.bias, "threshold": model.threshold}
    if model.error_threshold is not None:
        fields["error_threshold"] = model.error_threshold
    header = json.dumps({**fields, **extra}, sort_keys=True)
    body = "\n".join(f"{w:.4g}\t{f}" for f, w in sorted(model.weights.items()))
    return gzip.compress(f"{header}\n{body}\n".encode(), mtime=0)


@cache
def shipped_model() -> Model | None:
    """The model shipped with the package (``None`` when its file is missing)."""
    try:
        data = resources.files("toolsearch_cli.lint").joinpath("data", MODEL_FILE).read_bytes()
    except (FileNotFoundError, OSError):
        return None
    return read_model(data)


def model_reason(text: str, model: Model | None = None, *, sure: bool = False) -> str | None:
    """Why the learned model reads a text as an order to the model, or ``None`` under its threshold
    (with ``sure``, under its error threshold: ``None`` also when the model has none)."""
    model = model or shipped_model()
    if model is None:
        return None
    threshold = model.error_threshold if sure else model.threshold
    if threshold is None:
        return None
    z, chunk, feats = model.best_chunk(text)
    if z < threshold:
        return None
    return describe(model, z, chunk, feats)


def describe(model: Model, z: float, chunk: str, feats: set[str] | frozenset[str]) -> str:
    """The message of a finding: the score over the warning threshold, the words that weigh most, the chunk."""
    words = ", ".join(repr(w) for w in model.words_for(set(feats)))
    snippet = " ".join(chunk.split())[:80]
    return f"reads as an order to the model (learned model, score {z - model.threshold:+.2f}; {words}): {snippet!r}"


def model_scores(texts: Iterator[str] | list[str], model: Model) -> list[float]:
    """The best chunk margin of each text, minus the threshold (>= 0: reported)."""
    return [model.best_chunk(t)[0] - model.threshold for t in texts]
