"""Opt-out: the words that mean "stop", and what stopping does (permanent, per channel).

Detection is deterministic and runs before any AI, so a model's mistake can never keep
messaging someone who asked us to stop.
"""

from __future__ import annotations

import re
import unicodedata

from django.db import transaction
from django.utils import timezone

from outreach import sequences
from outreach.models import Channel, Journey, Lead, Message
from outreach.suppression import channel_address, suppress

# Typographic quotes and dashes to ASCII, and the Romanian letters of legacy code pages
# (ş ţ typed as º þ, ă as ã), before diacritics are stripped.
_PUNCTUATION = str.maketrans(
    {
        "\u2019": "'",
        "\u2018": "'",
        "`": "'",
        "\u00b4": "'",
        "\u2013": "-",
        "\u2014": "-",
        "\u00ba": "s",
        "\u00aa": "S",
        "\u00fe": "t",
        "\u00de": "T",
    }
)
CLAUSE_SPLIT = re.compile(r"[.!?;:\n()]+|,|\s-\s|\b(?:dar|insa|but|however|though)\b")
TOKEN = re.compile(r"[a-z0-9]+")

# How much of a long text the opt-out check reads: its first and its last OPT_OUT_WINDOW
# characters (a stop is written at the top of a reply, or at the very end of a long one).
OPT_OUT_WINDOW = 8_000

# --- the opt-out vocabulary ------------------------------------------------------------
# What people write when they mean "stop", as regexes over a clause's tokens joined by single
# spaces ("Ștergeți-mă!" → "stergeti ma", "don't" → "dont"); groups of meaning, not
# sentences. "mai" (any more) is what makes most Romanian ones a stop: "nu mă sunați,
# scrieți-mi" is a channel preference, "nu mă mai sunați" is a stop. The offline triage
# decides its "unsubscribe" intent with `asks_to_stop`, so both read this one list.

# Romanian verbs of reaching someone (second person, imperative or infinitive).
_RO_REACH = (
    r"trimite\w*|trimet\w*|trimiti|scrie\w*|scrii|suna|sunati|sunat|contact\w*|deranj\w*|spam\w*|"
    r"insist\w*|hartui\w*|bombard\w*|bate\w* la cap|agas\w*|sacai\w*|adresati|reveniti|"
    r"indrazni\w*|luati (legatura|contact\w*)|apelati|includ\w*|adaug\w*|"
    r"pune\w* (pe|in) (lista|liste|grup)\w*|"
    r"ocupa\w* (timpul|telefonul)|"
    r"(expedi|transmit)\w* (\w+ )?(mesaj|ofert|e ?mail|sms|reclam|nimic|spam)\w*|"
    r"bag\w* (in|pe) (lista|liste|baza|grup|campani)\w*|plictisi\w*|enerv\w*|umple\w*|tracas\w*|"
    r"fac\w* (spam|oferte|reclam\w*|publicitate)|dati (\w+ )?(mesaj|sms|telefo|apel|e ?mail)\w*|"
    r"(ma |ne )(cautati|cauta)|folositi (\w+ ){0,2}(numar\w*|nr|datele|adresa|contactul)|"
    r"utilizati (\w+ ){0,2}(numar\w*|nr|datele|adresa|contactul)"
)
# Romanian verbs of removing or erasing, and what is removed.
_RO_REMOVE = r"sterg\w*|scoat\w*|scoate\w*|elimin\w*|exclud\w*|radiati"
_RO_ERASE = r"sterg\w*|elimin\w*|exclud\w*"  # ("scoateți-mi o factură" is "issue me")
_RO_WHAT = r"numar\w*|nr|datele|adresa|e ?mailul|contactul|telefonul|din|de pe"
_RO_REMOVED = (
    r"ma|ne|mi|imi|numarul|nr|datele|date|adresa (mea|noastra|de e ?mail|asta|aceasta)|"
    r"e ?mailul|contactul|contactele|telefonul|acest|aceasta|asta|tot|toate|informatiile|l"
)
_RO_REMOVED_SCOATE = (
    r"ma|ne|l|numarul|nr|datele|date|adresa (mea|noastra|de e ?mail)|e ?mailul|contactul|"
    r"contactele|telefonul|"
    rf"acest|aceasta|asta|(mi|imi|ne) (\w+ )?({_RO_WHAT})"
)
# English verbs of reaching someone.
_EN_REACH = (
    r"contact\w*|messag\w*|text\w*|e ?mail\w*|mail\w*|writ\w*|sms\w*|whatsapp\w*|spam\w*|"
    r"bother\w*|pester\w*|harass\w*|reach\w*( out)?|ping\w*|send\w*|sent|bug\w*|annoy\w*"
)
_EN_WHAT = (
    r"messages|emails|e mails|texts|sms|calls|offers|spam|marketing|contact|communications?|"
    r"mesaje|mesajele|oferte|msgs?|msj\w*"
)

STOP_PATTERNS: tuple[str, ...] = (
    # unsubscribe words (and their usual typos)
    r"de[sz]abon\w*|dez?inscri\w*|un ?su\w*s\w*c?r?i\w*b\w*|unsub\w*|opt ?out\w*|"
    r"opt (me|us) out|stopati|stopeaza|stopa (mesaj\w*|trimiter\w*)",
    # nu (mă) mai trimiteți / scrieți / sunați / contactați / deranjați ...
    rf"(?<!de ce )(nu|n) (ma |ne |mi |imi |va )?mai (ma |ne |mi |imi )?({_RO_REACH})",
    r"^(va rog |te rog )?nu mai$|sa nu (va |te )?mai prind|iesiti din (telefonul|viata|"
    r"inbox\w*|whatsapp\w*)|(nu|n) (mai )?(vreau|vrem|doresc|dorim) sa (mai )?(am|avem) de a face",
    r"(nu|n) (ma|ne|mi|imi) (contact\w*|deranj\w*|spam\w*|hartui\w*|bombard\w*|adaug\w*|"
    r"trimite\w* (\w+ )?(mesaje|nimic|sms\w*|spam|reclame|oferte))",
    # nu (mai) vreau / doresc să (mai) primesc / fiu contactat / mesaje / oferte ...
    r"(nu|n) (mai )?(vreau|vrem|doresc|dorim|dori|vrea|doreste|vor|doream|voiam|vroiam) (sa )?"
    r"(mai )?(primesc\w*|"
    r"primim|primeasca|"
    r"primi|aud|auzim|vad|vedem|apar|aparem|figurez|figuram|mesaje\w*|sms\w*|e ?mailuri|"
    r"e ?mail\w*|oferte|ofertele|reclame|publicitate|apeluri|notificari|spam|contact|"
    r"(fiu|fim|fie|mai fiu|mai fim|mai fie) (contactat\w*|sunat\w*|deranjat\w*|spamat\w*|inclus\w*|"
    r"trecut\w*|inscris\w*|abonat\w*|abordat\w*|in (lista|baza|evidenta|legatura|contact)|"
    r"pe (lista|listele)))",
    r"(nu )?(mai )?am chef de (\w+ )?(mesaj\w*|ofert\w*|voi|apeluri|reclam\w*|spam\w*)|"
    r"(nu|n) (ma|ne) (mai )?intereseaza (\w+ )?(mesaj\w*|msj\w*|sms\w*|apeluri|reclame|"
    r"publicitate|newsletter\w*|spam\w*)|fara whatsapp|(nu|not) (pe|on|via) whatsapp|"
    r"(dreptul|dreptului) (la|de) (stergere|a fi uitat)|"
    r"mai lasati (ma|ne)|(dati|da) (ma|ne|mi|ne) pace|carati va|(ma|ne) retrag\w* din|"
    r"retrag\w* (ma|ne)\b|"
    r"dezactiv\w* (ma|ne|numarul|(mi |imi |ne )?(abonar\w*|"
    r"notificar\w*|mesaj\w*))|(numarul|nr|acest numar|this number|my number) (\w+ ){0,3}(nu (e|"
    r"este|accepta)|is not|isnt|doesnt accept|does not accept) (\w+ ){0,2}(reclam\w*|publicitate|"
    r"marketing|oferte|mesaje comerciale|spam|advertising|sales|promotions)|"
    r"(nu|n) (mai )?(vreau|vrem|doresc|dorim) (\w+ ){0,2}(newsletter\w*|informar\w*|noutat\w*|"
    r"promot\w*|campani\w*|marketing|comunicar\w*|msj\w*)|(nu|n) (mai )?(sunt|suntem) interesat\w* "
    r"(sa (mai )?(primesc|primim|fiu|fim)|de (\w+ ){0,2}(mesaj\w*|sms\w*|apeluri|newsletter\w*|"
    r"reclame|publicitate|spam|comunicar\w*))",
    r"^(va rog )?renuntati( va rog)?$|(nu|n) (va )?(mai )?pierdeti timpul|"
    r"(?<!nu )uitati de (mine|noi|numarul)|(va |iti |le )?interzic\w*|interzis sa (ma|mi|ne)|"
    r"nu (va|iti) permit sa|lasa\w* (ma|ne) cu (\w+ )?(ofert\w*|mesaj\w*|reclam\w*|spam\w*|"
    r"apeluri|voi|asta)|sa nu (va |te )?mai (vad|aud)|sa nu se (mai )?repete",
    r"(nu|n) mai (doresc|dorim|doreste)|(nu|n) (mai )?(e|este) (cazul|nevoie) sa (ma |mi |ne )?"
    r"(mai )?(ma |mi |ne )?(contact\w*|scrie\w*|trimite\w*|deranj\w*|spam\w*|insist\w*)|"
    r"termina\w* (cu|odata cu) (\w+ )?(mesaj\w*|spam\w*|"
    r"ofert\w*|voi|apeluri|reclam\w*)|(ma|ne) deranjeaza (\w+ )?(mesaj\w*|apeluri|sms\w*|"
    r"voi|ofert\w*)|(nu|n) mai (vreau|vrem)( nimic|$)|"
    r"(nu|n) (ma|ne) mai (cautati|cauta)|"
    r"(nu|n) (mai )?(vreau|vrem|doresc|dorim) (\w+ ){0,2}(mesaj\w*|sms\w*|oferte|reclame|"
    r"apeluri|notificari|spam)",
    r"sa nu mai (primesc\w*|primim|fiu|fim|apar|aparem|figurez|figuram|aud)|"
    r"a nu (mai )?fi (contactat\w*|sunat\w*|deranjat\w*|inclus\w*)",
    rf"(nu|n) (mai )?(vreau|vrem|doresc|dorim) sa (ma|ne|mi|imi) (mai )?({_RO_REACH})",
    # refusing, objecting, consent never given
    r"(nu|n) (sunt|suntem) de acord sa (mai )?(primesc|primim|fiu|fim|ma|mi|imi|ne)|"
    r"(nu|n) (accept|acceptam|accepta) (\w+ )?(mesaje|oferte|apeluri|sms\w*|publicitate|"
    r"reclame|spam|contact\w*)|refuz (sa (mai )?primesc|orice|mesajele|comunicar\w*|"
    r"contact\w*)|(ma|ne) opun\w*|dreptul (la|de) opozitie|object\w* to (the |any |further )?"
    r"(processing|contact|marketing|messages)",
    r"(nu|n) (v |va )?(am|mi am|ne am|am mai) (dat|acordat|exprimat) (\w+ )?(acordul|"
    r"consimtamantul)|fara (\w+ )?(acordul (meu|nostru)|consimtamantul (meu|nostru)|acord|"
    r"consimtamant)$|"
    r"(nu|n) (m am|ne am) (abonat|inscris)|(nu|n) (am|v am) (cerut|solicitat) (\w+ ){0,2}"
    r"(mesaje\w*|oferte\w*|asta|nimic|sms\w*)|without (my|our) (consent|permission)|"
    r"(never|didnt|did not|have not|havent) (\w+ )?(signed up|subscribed|opted in|consented|"
    r"agreed|asked for|gave (you )?(my |our )?(consent|permission|number))",
    r"(ma|ne) uitati|uitati (ma|ne|numarul)|ultimul avertisment|(last|final) warning|"
    r"(nu|n) (mai )?(am|avem) nevoie de (\w+ )?(mesaj\w*|sms\w*|apeluri|spam|reclame)|"
    r"(dont|do not|no longer) need (your|these|any|more) (messages|texts|emails|spam|calls)|"
    r"nedorit\w*|nesolicitat\w*|unwanted|unsolicited|do not disturb|dont disturb",
    # ștergeți-mă / scoateți-mi numărul / eliminați datele / ștergerea datelor
    rf"({_RO_ERASE}) ({_RO_REMOVED})\b|(scoat\w*|scoate\w*) ({_RO_REMOVED_SCOATE})\b",
    rf"(ma|ne|il) ({_RO_REMOVE})|(mi|imi) ({_RO_ERASE})|(mi|imi) scoat\w* (\w+ )?({_RO_WHAT})",
    r"anul\w* (\w+ )?(abonar\w*|abonament\w*|inscrier\w*)|cancel (my |our |the )?"
    r"subscription|renunt (\w+ )?la (mesaj\w*|abonar\w*|abonament\w*|newsletter\w*|oferte\w*)|"
    r"(sa )?(ies|iesim) din (lista|listele|baza|evident\w*)",
    r"(scoat\w*|scoate\w*|sterg\w*|elimin\w*|remove|delete|take) (\w+ )?(din|de pe|from|off) "
    r"(lista|listele|baza|evident\w*|agenda|grup\w*|newsletter|your list|the list|your "
    r"(database|mailing|contact|distribution|records|system)|the (database|mailing))|"
    r"^(please |pls |kindly )?(remove|unsubscribe|delete)( me| us| this number)?( please| pls)?$",
    r"(stergerea|eliminarea|scoaterea) (\w+ )?(datelor|numarului|mea|noastra|contului|"
    r"adresei|din)|(sa|sa mai) (fiu|fim) (sters|stearsa|stersi|scos|scoasa|scosi|eliminat\w*)",
    r"(dati|da) (ma|ne) (jos|afara)",
    r"(retrag|retrageti|retragem|revoc|revocati|imi retrag|ne retragem) (\w+ ){0,2}"
    r"(consimtamantul|acordul)|withdraw (\w+ )?consent",
    # lăsați-mă în pace / gata cu mesajele / ajunge cu spam / fără mesaje / încetați / opriți
    r"lasa\w* (ma|ne) (\w+ )?in pace|(du te|duceti va|mergeti|mars) (\w+ )?(dracu\w*|naiba)|"
    r"(gata|ajunge) cu (\w+ )?(mesaj\w*|sms\w*|spam\w*|ofert\w*|"
    r"apel\w*|reclam\w*|voi)|fara (mai multe |alte )?(contact\w*|mesaje|sms\w*|spam|oferte|"
    r"apeluri|reclame)|"
    r"incetati\w*|inceteaza\w*|(opri\w*|opres\w*|opreste\w*) (\w+ ){0,2}(mesaj\w*|"
    r"trimiter\w*|sms\w*|spam\w*|notific\w*|apel\w*|campani\w*|ofert\w*|reclam\w*)|"
    r"opriti va",
    r"(va |te )?(blochez|blocam|raportez|raportam) (\w+ ){0,2}(spam|numarul|voi)|"
    r"(va|te) (blochez|blocam)",
    r"nu (aveti|ai) (voie|dreptul) sa (ma|mi|imi|ne) (\w+ )?(contact\w*|scri\w*|trimit\w*|"
    r"sun\w*|folosi\w*)",
    r"de ce (tot|inca|mai|continuati sa) (primesc|primim|imi trimiteti|ne trimiteti|"
    r"imi scrieti|trimiteti)",
    # English: remove / delete / take me off, and the data itself
    r"(remove|delete|erase|drop|scrub|purge|wipe|unlist) (me|us|my|our|all my|all our|"
    r"this (number|email|address|contact|phone)|the number)\b",
    r"(delete|erase) (it|that|them)$|(take|get) (me|us|my \w+|our \w+|this \w+) (off|out of)",
    r"(deletion|removal|erasure) of (my|our|all|the personal)|right to (erasure|be forgotten)|"
    r"(lose|forget) (my|our) (number|email|details|contact)|forget (about )?(me|us)\b",
    r"(be|been|get|got) (removed|deleted|unsubscribed|taken off)",
    # English: don't / never / stop contacting, no more messages, I no longer wish to ...
    rf"(dont|do not|never|not to|pls dont|please dont) (ever )?({_EN_REACH})( (me|us|this|"
    r"again|anymore|any more|here|to me|to us|to this)|$)",
    r"(dont|do not|no need to|never) (\w+ )?follow ?up|no need to (contact|message|text|"
    r"email|call|write|reach|follow)|not (to )?be (contacted|messaged|emailed|texted|called|"
    r"bothered|disturbed)|no point (in )?(messaging|writing|contacting|texting|emailing)|"
    r"(n are|nu are|nu e|nu este|nu are niciun) rost sa (ma |ne |mi |imi )?(mai )?"
    r"(ma |ne |mi |imi )?"
    rf"({_RO_REACH})|degeaba (\w+ )?(ma |ne |mi |imi )?mai ({_RO_REACH})|"
    r"(nu|n) (mai )?insist\w*|(am )?blocat (numarul|contactul|firma|va)|"
    r"(blocking|blocked) (you|this|your)|(raportat|reported) (\w+ )?(ca |as )?spam",
    r"(dont|do not|never|not to) (ever )?(call|ring|phone) (me|us|this)( \w+)? (again|"
    r"anymore|any more|ever)",
    rf"(stop|quit|stopped|stopping) (it|this|now|all|pls|please|({_EN_REACH})|call\w*)\b",
    r"(dont|do not) call$|(dont|do not) add (me|us|my|our)|(do not|dont) (contact|call|disturb) "
    r"(list|register)|robinson|(messages|texts|emails|calls) (\w+ )?(are|is) (\w+ )?(annoying|"
    r"unwanted|spam|intrusive|harassment)|"
    r"(please|pls|kindly) not (contact|message|text|email|call|write)|"
    r"not being (contacted|messaged|called|texted|emailed)|take (me|us) out$|"
    r"^no (contact|messages|calls|spam|texts|emails)( please| pls| thanks| thank you)?$|"
    r"(not interested in|no interest in) (being (contacted|messaged|called)|(your|these|any) "
    r"(messages|texts|emails|spam|calls))|"
    r"(rather|prefer) not (to )?(receive|get|be contacted|be messaged|hear)|"
    r"^(thats|that s|that is|its|it s) enough$|^never again$|(count|leave|keep) (me|us) out|"
    r"respect\w* (my|our) (privacy|wish\w*|decision|request)|respectati (\w+ )?(dorinta|"
    r"decizia|intimitatea|viata privata)|(dont|do not|stop) wast\w* (your|my) time|"
    r"reporting (this|you|your)|(not allowed|no right|no permission) to (contact|message|text|"
    r"email|call|write|use)|"
    r"(dont|do not|never) send (me |us )?(anything|any|nothing|more)|(should|must) not be "
    r"(contacted|messaged|called|texted|emailed)|(not|never) consent\w* to|"
    r"refrain from \w+ing (me|us)",
    r"^(no more|nothing more|enough)( please| pls| plz| thanks| thank you)?$|^(pls|plz|please) "
    r"no more",
    r"(my|our) (personal )?(data|details|number|information|info|e ?mail|contact\w*) "
    r"(deleted|removed|erased)|(delete|erase|remove|wipe) (all|any|everything)( \w+){0,5} "
    r"(about|on|of) (me|us)",
    rf"(no|nothing) (more|further) (\w+ )?({_EN_WHAT})|enough (with )?(the |your )?({_EN_WHAT})",
    r"(mesaj\w*|ofert\w*|apeluri\w*|sms\w*) (\w+ ){0,2}(nu|n) (sunt|e|este|mai sunt) (dorit\w*|"
    r"binevenit\w*|solicitat\w*|acceptat\w*)|(nu|n) (mai )?(aveti|primiti) (\w+ )?(acordul|"
    r"consimtamantul|permisiunea)|refrain from (\w+ ){0,2}(contact\w*|messag\w*|text\w*|"
    r"e ?mail\w*|call\w*|writ\w*)",
    r"(no longer|dont|do not|doesnt|does not|never|not) (want|wish|care|like|need)\w* "
    r"(to )?(be )?"
    r"(receive\w*|receiving|contacted|messaged|emailed|texted|called|hear from|getting|"
    rf"get (any|more|these|your|further|such|{_EN_WHAT})|any (more |further )?({_EN_WHAT})|"
    rf"(these|your|more|further|such) ({_EN_WHAT}))",
    r"not interested in (receiving|getting|hearing)|(cease|desist|discontinue)\w*",
    r"leave (me|us) (alone|be)|cut it out|knock it off|^back off$|get off my (phone|back|case)|"
    r"go away|get lost|buzz off|piss off|f off|fuck off",
    r"(block|report) (you|your number|this number|this as spam|you as spam)|"
    r"(reported|marked) (you |this )?as spam",
)
_STOP = re.compile(rf"\b(?:{'|'.join(STOP_PATTERNS)})\b")

# "STOP" on its own (SMS taught everyone), anywhere in the text, but not "stop by the
# farm", "one-stop shop", "nonstop", "bus stop", "stopul de la intersecție".
_STOP_WORD = re.compile(
    r"(?<!\bone )(?<!\bone-)(?<!\bnon )(?<!\bnon-)(?<!\bbus )(?<!\bfull )(?<!\bpit )"
    r"(?<!\btruck )\bstop+\b"
    r"(?! (by|in|over|at|on|off|ul|ului|cadru|and go|loss|sign)\b)(?!-ul\b)"
)
# The whole text, once every non-letter is gone: "S T O P", "s.t.o.p", "Un-subscribe".
_SQUEEZED = re.compile(
    r"^(stop+|unsub\w*|de[sz]abon\w*|opt ?out|remove(me)?|deleteme|blocked|blocat)$"
)
# Nothing but a stop sign.
_STOP_SIGNS = re.compile(r"^[\s\W]*[🛑⛔🚫][\s\W🛑⛔🚫]*$")

# "If you contact me again ...", "dacă mai primesc un mesaj ...", "încă un mesaj și ...":
# a stop when the text threatens something (a complaint, a lawyer, the police, a report),
# or when the contact itself is called a nuisance.
_CONDITIONAL = re.compile(
    r"\b(?:daca (\w+ ){0,2}mai (\w+ ){0,2}(primesc\w*|primim|vad|aud|trimite\w*|scrie\w*|"
    r"sun\w*|contact\w*|deranj\w*|spam\w*|caut\w*)|(inca|macar) un (singur )?(mesaj|sms|"
    r"e ?mail|mail|apel|telefon)|la (urmatorul|inca un) (mesaj|sms|e ?mail|apel)|"
    r"if (you|u|your \w+|anyone|i|we) (\w+ ){0,3}(contact|message|text|e ?mail|mail|call|"
    r"write|spam|bother|send|ping|reach|get|receive|hear)\w*|"
    r"(one|1) more (message|text|email|e mail|call|sms)|data viitoare|next time|"
    r"keep (it|this) up|mai incercati|"
    r"(another|next) (message|text|email|e mail|call|sms)|"
    r"(contact|message|text|email|call|write to) (me|us) again|"
    r"mai (\w+ )?(trimite\w*|scrie\w*|suna\w*) (un|o|inca un|inca o) (\w+ )?(mesaj|sms|data|"
    r"e ?mail|apel) si|if (this|it) (continues|keeps|goes on|happens again|persists)|"
    r"daca (mai )?(continuati|continua)|daca (se )?(mai )?repeta)\b"
)
_NUISANCE = re.compile(
    r"\b(?:mai (ma |ne )?(deranj|spam|hartui|bate)\w*|o singura data|inca o data|o data$|"
    r"one more time|ever again)\b"
)
_THREAT = re.compile(
    r"\b(?:reclam\w*|plang\w*|anpc|anspdcp|avocat\w*|judecat\w*|instant\w*|tribunal\w*|"
    r"politi\w*|raport\w*|report\w*|denunt\w*|sesiz\w*|penal\w*|amend\w*|blochez|"
    r"blocam|block\w*|lawyer\w*|attorney\w*|sue|suing|court|legal|police|authorit\w*|gdpr|"
    r"complain\w*|fined?|regret\w*|pare rau|vedeti voi|o sa vedeti|see what happens|"
    r"consequences|consecinte|be sorry)\b"
)
_FUZZY_STOP_WORDS = (
    "unsubscribe",
    "dezabonare",
    "dezabonati",
    "contactati",
    "trimiteti",
    "deranjati",
    "stergeti",
    "scoateti",
)

CONFIRMATION = {
    "ro": "Am înțeles. Nu vă vom mai contacta pe WhatsApp. Vă mulțumim și o zi bună!",
    "en": "Understood. We will not contact you on WhatsApp again. Thank you and have a good day!",
}
_ENGLISH = re.compile(r"\b(unsubscribe|remove me|opt out|don'?t|do not|please|thanks)\b")


def normalise(text: str) -> str:
    """Lowercase, no diacritics (ș/ş→s, ț/ţ→t, ă/â→a, î→i), single spaces, stripped: the
    one normalisation of reply text (opt-out, triage, keywords).

    NFKD splits both the comma-below (ș U+0219) and the cedilla (ş U+015F) forms into a base
    letter plus a combining mark, and the marks are dropped; emoji are kept.
    """
    decomposed = unicodedata.normalize("NFKD", text.translate(_PUNCTUATION).lower())
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(stripped.split())


def one_edit_apart(a: str, b: str) -> bool:
    """True when a and b are at most one edit apart (substitution, insertion, deletion or
    swap of neighbours)."""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    if la == lb:
        diff = [i for i in range(la) if a[i] != b[i]]
        return len(diff) == 1 or (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    if la > lb:
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i:] == b[i + 1 :]


def _stop_token(token: str) -> str:
    """A token one typo away from a word of the vocabulary ("contcatati") is that word."""
    if len(token) < 8:
        return token
    for word in _FUZZY_STOP_WORDS:
        if one_edit_apart(token, word):
            return word
    return token


def clause_lines(norm: str) -> list[str]:
    """Normalised text → its clauses, each as tokens joined by one space ("don't" → "dont")."""
    lines = []
    for clause in CLAUSE_SPLIT.split(norm):
        tokens: list[str] = []
        for raw in TOKEN.findall(clause):
            if raw == "t" and tokens and tokens[-1].endswith("n"):
                tokens[-1] += "t"
            else:
                tokens.append(raw)
        if tokens:
            lines.append(" ".join(tokens))
    return lines


def bounded(text: str, window: int = OPT_OUT_WINDOW) -> list[str]:
    """The parts of a text that are read: all of it, or its first and last `window`
    characters when it is longer than two windows (each cut at a space, so no word is
    split into a new one)."""
    if len(text) <= 2 * window:
        return [text]
    head, tail = text[:window], text[-window:]
    head = head[: head.rfind(" ")] if " " in head else head
    tail = tail[tail.find(" ") + 1 :] if " " in tail else tail
    return [head, tail]


def asks_to_stop(norm: str) -> bool:
    """Whether a normalised text (see `normalise`) asks us to stop writing."""
    if _STOP_WORD.search(norm) or _STOP_SIGNS.match(norm):
        return True
    if _SQUEEZED.match("".join(ch for ch in norm if "a" <= ch <= "z")):
        return True
    lines = [" ".join(_stop_token(t) for t in line.split()) for line in clause_lines(norm)]
    if any(_STOP.search(line) for line in lines):
        return True
    return _threatens(lines)


def _threatens(lines: list[str]) -> bool:
    conditional = [line for line in lines if _CONDITIONAL.search(line)]
    return bool(conditional) and (
        bool(_THREAT.search(" ".join(lines))) or any(_NUISANCE.search(line) for line in conditional)
    )


def threatens(norm: str) -> bool:
    """Whether a normalised text threatens something if we write again ("dacă mă mai
    contactați, fac plângere"): an opt-out, and a complaint a person must see."""
    return _threatens([" ".join(map(_stop_token, line.split())) for line in clause_lines(norm)])


def is_opt_out(text: str) -> bool:
    """Whether a reply asks us to stop. Deterministic, and bounded: a long text is read at
    its start and its end (`bounded`)."""
    return any(asks_to_stop(normalise(part)) for part in bounded(text or ""))


def confirmation_for(text: str) -> str:
    return CONFIRMATION["en" if _ENGLISH.search(normalise(text)) else "ro"]


@transaction.atomic
def opt_out(lead: Lead, channel: str, *, trigger: Message | None = None) -> bool:
    """Opt the lead out of `channel` for good and stop everything automated for it.
    Returns True the first time (when a confirmation is due), False if already out."""
    now = timezone.now()
    journey = Journey.objects.select_for_update().get(lead=lead)
    if channel == Channel.WHATSAPP:
        first = not journey.whatsapp_opted_out
        journey.whatsapp_opted_out, journey.whatsapp_opted_out_at = True, now
        fields = ["whatsapp_opted_out", "whatsapp_opted_out_at"]
    else:
        first = not journey.email_opted_out
        journey.email_opted_out, journey.email_opted_out_at = True, now
        fields = ["email_opted_out", "email_opted_out_at"]
    journey.save(update_fields=[*fields, "updated_at"])
    sequences.stop(lead.pk, "opt-out")
    address = channel_address(channel, phone=lead.phone, email=lead.email)
    if any(address.values()):  # the address itself: no other lead carrying it is contacted
        suppress(lead.tenant_id, **address, reason=f"opt-out of lead {lead.pk}", message=trigger)
    return first
