"""The offline triage tables: cues (regexes over normalised, tokenised clauses) with their
intent and weight, tie priorities, sentiment bands, negators, tone words, language words
and trigger keywords. The engine that reads them is `hitl.triage.offline`.

Patterns run on clauses whose tokens are lowercase ASCII joined by single spaces:
"Sunați-mă!" → "sunati ma", "n-am" → "n am", "don't" → "dont". A group named h/h2/h3 marks
the head word that a negation window looks back from (default: the match start).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from outreach import optout


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


@dataclass(frozen=True)
class Cue:
    pattern: re.Pattern[str]
    intent: str  # an intent, or a flag starting with "_"
    weight: float
    negated: str | None  # None: negation ignored; "": dropped when negated; else credited
    window: int


def _cue(
    pattern: str, intent: str, weight: float, negated: str | None = None, window: int = 5
) -> Cue:
    return Cue(re.compile(rf"\b(?:{pattern})\b"), intent, weight, negated, window)


_PERSON = (
    r"fiul|fiica|sotul|sotia|fratele|sora|ginerele|nora|nepotul|nepoata|colegul|colega|"
    r"colegei|colegului|contabilul|contabila|administratorul|administratorului|agronomul|"
    r"inginerul|asociatul|partenerul|seful|directorul|patronul"
)
_WEEKDAY = r"luni|marti|miercuri|joi|vineri|sambata|duminica"

CUES: tuple[Cue, ...] = (
    # --- unsubscribe: decided before anything else, by outreach.optout.asks_to_stop (the
    # one opt-out vocabulary; see offline.score) -----------------------------------------
    # --- out_of_office: weight 4 ----------------------------------------------------------
    _cue(
        r"(?P<h>concediu|concediul)|raspuns automat|mesaj automat|auto ?reply|"
        r"automatic reply|autoresponder|out of (the )?office|ooo|"
        r"on (annual |parental |sick |maternity )?leave|on (vacation|holiday|holidays)|"
        r"away from (the |my )?(office|desk)|(will be|ll be|be) back|back (on|in|at|from)|"
        r"will return|returning (on|to)|limited (access|connectivity|connection|internet)|"
        r"acces limitat|lipsesc (de la|din|pana|azi|in perioada|toata)|"
        r"sunt plecat\w*|plecat\w* (in|din)|(sunt |ma aflu )?in (deplasare|strainatate|co|cm|"
        r"vacanta|delegatie)|(?P<h2>vacanta|vacation)|currently away|away (until|till|from)|"
        r"im away|back \d|internat\w*|in spital|spitalizat\w*|hospital\w*|out sick|"
        r"sick (leave|today)|medical leave|bolnav\w*|biroul (este |e )?inchis|inchis pana|"
        r"office is closed|closed for (the )?(holiday|holidays)|reopen\w*|redeschidem|"
        r"will reply (tomorrow|later|on|when)|"
        rf"revin (la birou|in birou|pe|peste|dupa|din concediu|{_WEEKDAY})|voi reveni|"
        r"voi raspunde (la|dupa|cand)|nu am acces",
        "out_of_office",
        4,
        negated="",
        window=2,
    ),
    _cue(r"auto|travel\w*|lipsesc", "out_of_office", 2),
    # --- complaint ----------------------------------------------------------------------
    _cue(
        r"(?P<h>reclamatie|reclamatii|reclamatia|reclamatiei|reclamatiile|reclamez|reclamam|"
        r"reclamat|plangere|plangerea|complaint|complain|complaining)",
        "complaint",
        3,
        negated="",
        window=3,
    ),
    _cue(
        r"(?P<h>nemultumi\w*|dezamagit\w*|disappointed|dissatisfied|unhappy|furios|furioasa)",
        "complaint",
        3,
        negated="",
        window=3,
    ),
    _cue(
        r"bataie de joc|teapa|tepari|teparilor|escroc\w*|hoti|hotilor|scam|scammers|"
        r"fraud\w*|inacceptabil|unacceptable|ridicol|ridiculous|penibil|rusine|"
        r"anpc|anspdcp|protectia consumatorului|avocat\w*|lawyer|attorney|instanta|"
        r"judecata|tribunal|politi[ae]",
        "complaint",
        3,
    ),
    _cue(
        r"(?P<h>problema|probleme|problemele|problemei|problem|problems|issue|issues)",
        "complaint",
        1,
        negated="",
        window=3,
    ),
    _cue(
        r"(problema|probleme|problem|issue) (cu|with) (factura|facturarea|livrarea|comanda|"
        r"ultima|produsul|serviciul|your|the (delivery|order|invoice))",
        "complaint",
        2,
    ),
    _cue(
        r"(nu|n) (au|a|ati|mi a|mi au|ne a|ne au) (ajuns|venit|sosit|livrat|functionat)|"
        r"nimeni nu raspunde|never (arrived|came)|not (arrived|delivered)|"
        r"(banii|bani) inapoi|refund|rambursare|despagubir\w*",
        "complaint",
        2,
    ),
    _cue(
        r"(vreau|cer|doresc|as vrea) sa vorbesc (urgent )?cu (un |o )?(manager|managerul|"
        r"directorul|seful|sef|responsabilul)",
        "complaint",
        2,
    ),
    _cue(
        r"(ati|mi ati|ne ati) (incurcat|stricat|taxat|trimis alt|trimis gresit)|alt tip de|"
        r"nu corespunde|necorespunzator|defect\w*|stricat\w*|expirat\w*|umed|torn|damaged|"
        r"broken|(facturat|taxat|sunat|scris) de (doua|trei|patru|cinci|2|3|4|5) ori|"
        r"a (treia|patra|cincea) oara|(third|fourth|fifth) time|"
        r"(cum|de ce) (v ati permis|ati permis|va permiteti)|hartuire|harass\w*|insistati|"
        r"spam\w*|nu raspunde nimeni|nu mi a raspuns nimeni|no one (answers|responds|replied)|"
        r"nobody (answers|responds|replied)|seriozitate|neseriozitate|neseriosi|batjocura|"
        r"lipsa de respect|unprofessional|neprofesionis\w*|rupt\w*|ud|uda|ude|udata|"
        r"mucegai\w*|spart\w*|avariat\w*|deteriorat\w*|(ati|mi ati|ne ati) promis|"
        r"you promised|ce fel de (seriozitate|firma e asta|servicii)|nesimtit\w*|obraznic\w*|"
        r"nepoliticos\w*|rude|jignit\w*|ilegal|illegal|(factura|invoice) (e |este |is )?"
        r"(gresita|wrong|incorecta|incorrect)|wrong invoice|(nobody|no one) (\w+ ){0,4}"
        r"(respond\w*|answer\w*|replied)",
        "complaint",
        2,
    ),
    _cue(
        r"(ne|mi|m|v|ati) a?i? ?mintit|lied|lying|(nu|n) corespunde|doesnt match|does not match|"
        r"(alt|other|wrong|different) (pret|price)|din cauza voastra|because of you|"
        r"(very |extremely )?poor service|servicii (proaste|slabe)|de tot rasul|"
        r"not (okay|ok|acceptable|normal)|nu (e|este) (normal|in regula|ok)",
        "complaint",
        2,
    ),
    # --- referral -----------------------------------------------------------------------
    _cue(
        r"(vorbiti|vorbeste|vb|discutati|luati legatura|luati contact|intelegeti va) cu "
        r"(?!mine\b|noi\b|dumneavoastra\b)",
        "referral",
        3,
    ),
    _cue(
        r"(contactati|contacteaza|sunati|suna|scrieti|scrie) (l|o|i|le|lui|ei)\b",
        "referral",
        3,
    ),
    _cue(
        r"(va dau|iti dau|uite|aveti aici) (numarul|nr|contactul|datele|adresa)|"
        r"numarul (lui|ei)",
        "referral",
        3,
    ),
    _cue(
        rf"(el|ea|{_PERSON}) (meu |mea |nostru |noastra )?(se ocupa|raspunde|decide|are|"
        r"este responsabil\w*|e responsabil\w*|conduce|administreaza)",
        "referral",
        3,
    ),
    _cue(
        r"de (asta|achizitii|aprovizionare|ferma|partea asta|asa ceva|comenzi|subventii) "
        r"se ocupa",
        "referral",
        3,
    ),
    _cue(
        r"(am|i am) (transmis|trimis|dat|redirectionat) (mai departe|mesajul|mailul|emailul|"
        r"numarul|oferta)|forwarded|(pass|passed) (it|this|your|the) (\w+ )?(on|to|along)|"
        r"(pass|passed) (your|the) (message|number|details|email)",
        "referral",
        3,
    ),
    _cue(
        r"(talk|speak|get in touch|reach out) (to|with) (?!me\b|us\b)|"
        r"contact (my|our|him|her|mr|mrs|ms)\b|"
        r"(he|she) (handles|runs|deals|is in charge|is responsible|manages|takes care)|"
        r"(who|that) (handles|deals with|is in charge)|in charge of|"
        r"the right person (is|would be)|(purchasing|procurement|office|farm) manager|"
        r"(best|better) to (email|call|contact|ask|write to)|"
        r"(email|call|ask|write to) (my|our) (colleague|agronomist|manager|accountant|son|"
        r"daughter|wife|husband|boss|partner)|"
        r"pentru (achizitii|aprovizionare|comenzi|asta|subventii|contracte) (e|este|raspunde|"
        r"se ocupa) (doamna|domnul|dl|dna|colegul|colega|\w+)|"
        r"(doamna|domnul|dl|dna) \w+ (se ocupa|raspunde|e responsabil\w*)",
        "referral",
        3,
    ),
    _cue(
        rf"{_PERSON}|my (son|daughter|wife|husband|brother|colleague|partner)|"
        r"our (manager|accountant|agronomist)",
        "referral",
        0.5,
    ),
    # --- wrong_person -------------------------------------------------------------------
    _cue(
        r"gresit (numarul|persoana|adresa|nr|destinatarul)|ati gresit$|numar(ul)? gresit|"
        r"persoana gresita|adresa gresita|nu sunt eu\b|nu e (firma|ferma) mea|"
        r"(nu|n) (am|avem) (nicio |nici o )?(firma|ferma|societate)|"
        r"nu mai (lucrez|lucreaza|lucram)|nu mai sunt (\w+ )?(la|in|angajat\w*|administrator\w*|"
        r"director\w*|patron\w*|asociat\w*)|nu mai (apartine|exista)|"
        r"(nu|n) (am|avem) (nicio |nici o )?legatura|no connection (to|with)|"
        r"nothing to do with|nu sunt (cine|cel|persoana) (credeti|cautati)|"
        r"not who you think|(numarul|nr) (meu )?personal|numar personal|"
        r"nu (e|este) (numarul|nr) (firmei|fermei)|"
        r"(aici|acesta|asta) nu (e|este) (nicio |o )?(firma|ferma)|"
        r"(firma|societatea|ferma) (a fost |e |este )?(radiata|inchisa|desfiintata|dizolvata|"
        r"lichidata|in faliment|in insolventa|vanduta)|"
        r"nu (stiu|cunosc) (despre |de )?(ce|care) (firma|ferma|companie)|"
        r"nu cunosc (firma|persoana)|nu ma ocup eu|nu ma ocup (de|cu)|nu eu ma ocup|"
        r"nu sunt (persoana potrivita|cel potrivit|responsabil\w*)",
        "wrong_person",
        3,
    ),
    _cue(r"nu eu decid|greseala|eroare|by mistake|mistake", "wrong_person", 2),
    _cue(
        r"(m ati|ma|m a|ati) confundat|confuzie|confused me|nu ma (cheama|numesc)|"
        r"(thats|that is|its|it is) not (my name|me)|my name is not|"
        r"aici (e|este) (o|un) (?!ferma|firma)\w+|this is (a|an) (?!farm|company)\w+ not|"
        r"nu iau (eu )?decizi\w*|dont (make|take) (the )?decisions",
        "wrong_person",
        3,
    ),
    _cue(
        r"wrong (number|person|email|address|contact)|not the right (person|contact)|"
        r"(no longer|dont|do not|not) (work|working) (for|at|with|here)|no longer (with|at)|"
        r"personal number|not a (farm|company|business)|"
        r"wrong (guy|man|woman|one|firm|company)",
        "wrong_person",
        3,
    ),
    # --- meeting_request (negated: dropped — "nu mă sunați" is a channel preference) ----
    _cue(
        r"(?P<h>sunati|suna|sunat|cautati|cauta) (ma|ne)|"
        r"(?P<h2>ma|ne) (puteti |poti )?(suna|sunati|cautati|cauta|gasiti)|"
        r"(?P<h3>dati|da) mi (un |o )?(telefon|apel|sunet|semn)",
        "meeting_request",
        3,
        negated="",
        window=3,
    ),
    _cue(
        r"(?P<h>putem|am putea|hai sa|as vrea sa|am vrea sa|vreau sa|sa) (mai )?(vorbi|vorbim|"
        r"discuta|discutam|ne vedem|ne intalnim|stabilim o|stam de vorba|ne auzim)|"
        r"stam de vorba|ne auzim|ne vedem|(pot|putem) sa va (sun|sunam)|va pot suna|"
        r"call (me |us )?back",
        "meeting_request",
        3,
        negated="",
        window=3,
    ),
    _cue(
        rf"vorbim (la telefon|maine|diseara|atunci|pe zoom|{_WEEKDAY})|"
        r"(va|te) sun (eu|noi|maine|diseara|dupa|mai tarziu|imediat|la)|"
        r"(?P<h>intalnire|intalnirea|programare|programam|intrevedere|demonstratie|demo)|"
        r"(?P<h2>veniti|treceti|treci|puteti veni|poti veni|puteti trece|poti trece)|"
        r"(?P<h3>va|te) (astept|asteptam)",
        "meeting_request",
        3,
        negated="",
        window=3,
    ),
    _cue(
        r"(?P<h>call|ring|phone) (me|us)|give (me|us) a (call|ring)|"
        r"(a|short|quick|phone|zoom|teams|video) (call|chat)|(can|could|shall) we (talk|"
        r"speak|meet|chat)|let s (talk|meet|chat|speak)|(?P<h2>meet|meeting)|"
        r"(schedule|arrange|book|set up) (a |an )?(call|meeting|demo|chat)|"
        r"set (something|a time|a call|a meeting) up|are you around|catch up|"
        r"(open to|up for) a (conversation|chat|call|meeting)",
        "meeting_request",
        3,
        negated="",
        window=3,
    ),
    _cue(
        r"(sunt|suntem) (disponibil\w*|liber\w*)|(cand|ce zi|ce ora) (putem|va convine|"
        r"sunteti disponibil|ati fi disponibil)|va convine|(available|free) (for a call|to talk|"
        r"to meet|next|on|tomorrow|this)|are you free|when (can|could) we|"
        r"(pe |on |via )?(zoom|teams|skype|google meet)",
        "meeting_request",
        2,
    ),
    _cue(  # a time that suits them: "mai bine după 17", "don't call me before 10"
        r"(mai bine|preferabil|doar|numai|better|rather|only|best) (dupa|dupa ora|la|la ora|"
        r"intre|pe la|seara|dimineata|dupa amiaza|after|at|between|in the (morning|afternoon|"
        r"evening))|(dont|do not|nu) (call|ring|suna\w*)( me| ma)? (before|inainte de) \d+",
        "meeting_request",
        3,
    ),
    _cue(
        rf"{_WEEKDAY}|maine|poimaine|diseara|dimineata|dupa amiaza|la pranz|ora \d+|la \d+|"
        r"\d+ ?(am|pm)|tomorrow|morning|afternoon|tonight|next week|this week|"
        r"saptamana (asta|aceasta|viitoare)|monday|tuesday|wednesday|thursday|friday",
        "_time",
        1,
    ),
    # --- price_request ------------------------------------------------------------------
    _cue(
        r"cat (ma |ne |mi |ar |mai |ne ar |mi ar )?(costa|e|este|vine|vin|luati|cereti|fi|face|"
        r"iese|iesi|ajunge)|how much|la ce pret|"
        r"(?P<h>pret|pretul|preturi|preturile|preturilor|pretului|tarif|tariful|tarife|"
        r"tarifele|cotatie|cotatia|cotatii|price|prices|pricing|priced|quote|quotation|"
        r"discount|discounts|discountul|reducere|reduceri|cost|costs)",
        "price_request",
        3,
    ),
    _cue(
        r"(trimiteti|trimite|vreau|vrem|as vrea|astept|dati|faceti) (\w+ ){0,4}(oferta|oferte|"
        r"cotatie)|oferta (pentru|la|de|cu)|(ce|care|stiu|aflu|afla|know) (\w+ )?(costuri|"
        r"costurile|costul)|costuri\w* (implica|sunt|are|ar fi)|"
        r"(vreau|as vrea|vrem) sa (stiu|aflu) (\w+ ){0,2}(pretul|costurile|costul|cat)",
        "price_request",
        3,
    ),
    # --- interested (negated: not_interested) --------------------------------------------
    _cue(
        r"(?P<h>interesat|interesata|interesati|interesate|intereseaza|interesa|interesant|"
        r"interesanta|interested|interesting)",
        "interested",
        2,
        negated="not_interested",
    ),
    _cue(r"(?P<h>interes)", "interested", 1.5, negated="not_interested", window=3),
    _cue(
        r"(?P<h>trimiteti|trimite|send|email|mail|dati|spuneti) (\w+ ){0,3}(detalii|informatii|"
        r"info|information|details|prezentarea|prezentare|catalogul|catalog|brosura|brosuri|"
        r"brochure|documentatia|documentatie|materiale|materialele|amanunte|pliant)|"
        r"(astept|asteptam) (\w+ ){0,2}(detalii|informatii|oferta|amanunte|materiale)|"
        r"(aveti|exista) (\w+ )?(materiale|prezentare|brosura|catalog|pliant)|"
        r"mai multe amanunte|"
        r"mai multe (detalii|informatii)|(tell me|know|hear|learn|find out) more|"
        r"more (info|information|details)",
        "interested",
        2,
        negated="",
        window=3,
    ),
    _cue(
        r"(vreau|vrem|as vrea|am vrea|doresc|dorim|as dori|am dori) sa (?P<h>aflu|aflam|vad|"
        r"vedem|incerc|incercam|testez|testam|comand|comandam)",
        "interested",
        2,
        negated="not_interested",
    ),
    _cue(
        r"(suna|pare|arata|sounds|looks) (foarte )?(bine|interesant|ok|good|great|interesting)",
        "interested",
        2,
        negated="not_interested",
        window=3,
    ),
    _cue(r"(?P<h>avem|am) nevoie|we need", "interested", 1, negated=""),
    _cue(
        r"(?P<h>ne ar|mi ar|m ar) (prinde bine|fi de folos|folosi|ajuta|placea)|"
        r"(?P<h2>ar fi) (util|utila|folositor|folositoare|bine|de folos|benefic)|"
        r"vreau si eu|vrem si noi|as vrea si eu|sign me up|count me in|sigur ca da|"
        r"bineinteles ca da|cum sa nu|of course|absolutely|definitely|(love|like) to hear|"
        r"cum (fac|facem|procedez|procedam|ma inscriu|incepem|aplic)|"
        r"how (do|can) (i|we) (start|sign up|apply|get started)|next steps|whats next|"
        r"(deschis|deschisi|deschisa) (la|pentru) (o )?(colaborare|discutie|propuneri|oferte)|"
        r"open to (it|this|a collaboration|working)|(could|might|would) (be useful|help)|"
        r"(putem|pot|as putea|am putea|vrem sa|vreau sa) (incerca|incercam|testa|testam)|"
        r"(pot|putem) sa (vad|vedem) (un |o )?(exemplu|demo|mostra|model|raport)|"
        r"(exemplu|sample|mostra) de",
        "interested",
        2,
        negated="not_interested",
        window=3,
    ),
    _cue(r"de acord|cu placere|ne uitam|take a look", "interested", 1),
    # --- not_interested -----------------------------------------------------------------
    _cue(
        r"(nu|n) (mai )?(am|avem) nevoie|nu (mi|ne|imi) (mai )?trebuie|"
        r"nu (e|este|i) (cazul|nevoie)|already (have|work|use|bought|got)|not for us|"
        r"no (thanks|thank you)|prea scump|too expensive|nu ne permitem|cant afford|"
        r"nu (e|este|i|prea e) (pentru|de) (noi|mine)|not for (us|me)|"
        r"(suntem|sunt) (acoperit\w*|aprovizionat\w*|asigurat\w*)|"
        r"(nu|n) (am|avem) (bani|buget|fonduri)|no budget|"
        r"(ill|i ll|i will|we ll|we will) pass(?! (your|the|it|this|on|along|that|him|her))|"
        r"not looking (for|to)|(suntem|sunt) (multumim|multumiti|multumit|multumita|ok|bine|"
        r"in regula) cu (ce|furnizorul|actualul|cei)",
        "not_interested",
        3,
    ),
    _cue(
        r"(avem|am|folosim|lucram) deja|(am|au) (cumparat|luat|comandat|contractat) deja|"
        r"(current|existing) supplier|(we re|we are|im|i am) (fine|good|all set)|"
        r"(nu|n) (doresc|dorim|vreau|vrem)(?! sa mai)|"
        r"nu (cumpar|cumparam|comand|comandam|folosim|folosesc|lucram cu voi|colaboram)|"
        r"nu acum|acum nu|nu momentan|momentan nu|not (right )?now|not at the moment|"
        r"nu mai (facem|fac) (agricultura|\w+ agricultura)|(am|au) vandut (ferma|pamantul|"
        r"firma|terenul)|am iesit la pensie|alte prioritati|other priorities",
        "not_interested",
        2,
    ),
    _cue(
        r"poate (la anul|anul viitor|la toamna|in toamna|la primavara|in primavara|"
        r"mai tarziu|alta data|altadata|dupa recolta\w*|la iarna|in iarna)|"
        r"(maybe|perhaps) (next (year|season|month|spring|autumn)|later|in the (autumn|spring|"
        r"fall))|reveniti (dupa|in|la|prin|peste|mai tarziu|toamna|anul viitor)|"
        r"next (year|season)|mai vorbim (la anul|la toamna|in primavara|alta data|mai incolo|"
        r"dupa)|mai incolo|dupa (sezon|campanie|recoltat)|some other time|another time",
        "_deferral",
        1,
    ),
    # --- question -----------------------------------------------------------------------
    _cue(
        r"cine (sunteti|esti|e|este)|who (are|is) (you|this)|ce (fel de )?(firma|companie)|"
        r"despre ce (e|este) vorba|ce (oferiti|vindeti|faceti|presupune|inseamna|anume)|"
        r"cum (functioneaza|merge|lucrati)|how (does|do) (it|this|you)|"
        r"what (exactly )?(do|is|are|does) (you|this|it)|de unde (sunteti|aveti|ati)|"
        r"where are you|(aveti|lucrati|livrati|ajutati|faceti|oferiti) (si|cumva|doar)|"
        r"livrati|se poate|este posibil|e posibil|is (this|it) (for|possible|available)|"
        r"do you (deliver|have|work|offer|also|sell)|trebuie sa|"
        r"cum (ati|ai) (dat de|gasit|ajuns la) (mine|noi|numarul|nr)|where did you (get|find)",
        "question",
        2,
    ),
    _cue(
        r"de unde (aveti|ati luat|ati gasit) (numarul|datele|adresa|nr|contactul)|"
        r"who gave you|how did you get|where did you (get|find)|"
        r"cum (ati|ai) (dat de|gasit|ajuns la) (mine|noi|numarul|nr)",
        "_privacy",
        1,
    ),
    # --- other --------------------------------------------------------------------------
    _cue(
        r"ok|okay|bine|multumesc|multumim|mersi|thanks|thank you|noted|am notat|am primit|"
        r"am vazut|received|got it",
        "other",
        1,
    ),
    _cue(
        r"ma mai gandesc|ne mai gandim|revin eu|revenim noi|revin cu un raspuns|ma uit|"
        r"let me think|think about it|ma consult|hristos a inviat|adevarat a inviat|"
        r"sarbatori fericite|craciun fericit|la multi ani|paste fericit|"
        r"happy (new year|easter|holidays)",
        "other",
        2,
    ),
)

# Ties go to what a person must handle first.
PRIORITY = (
    "complaint",
    "referral",
    "wrong_person",
    "meeting_request",
    "price_request",
    "not_interested",
    "interested",
    "question",
    "other",
)

# (base, low, high): the band each intent's sentiment stays in.
BANDS: dict[str, tuple[int, int, int]] = {
    "interested": (70, 50, 100),
    "meeting_request": (75, 50, 100),
    "price_request": (30, 5, 49),
    "question": (20, -40, 49),
    "referral": (30, 0, 49),
    "out_of_office": (10, 0, 49),
    "wrong_person": (5, -30, 49),
    "other": (15, -30, 49),
    "not_interested": (-35, -80, -5),
    "unsubscribe": (-50, -100, -20),
    "complaint": (-65, -100, -30),
}
DEFERRAL_BAND = (10, 0, 30)
PRIVACY_BASE = -20

NEGATORS = _words(
    "nu n nici niciodata nicio niciun fara not no never dont doesnt didnt cant wont "
    "isnt arent wasnt werent couldnt wouldnt shouldnt neither nor"
)
# "nu știu dacă", "nu sunt sigur", "not sure if": uncertainty, not a negation.
HEDGE = re.compile(r"^(stiu|sunt sigur\w*|suntem siguri|sure|know|m am hotarat|am decis)\b")
YES = _words("da yes sigur desigur bineinteles sure yep yeah acord absolut evident merge hai")
YES_FILLER = YES | _words(
    "de cu placere please ok okay bine super perfect spuneti zi spune rog va go ahead"
)
NO = _words("nu no nope nah pass")
NO_FILLER = NO | _words("multumesc multumim mersi multam merci thanks thank you va rog")

CLAUSE_SPLIT = optout.CLAUSE_SPLIT
TOKEN = optout.TOKEN
PHONE = re.compile(r"(?<!\d)(?:\+?40|0)\s?7\d{2}[\s.-]?\d{3}[\s.-]?\d{3}(?!\d)")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")

POSITIVE_TONE = re.compile(
    r"\b(multumesc|multumim|mersi|super|excelent|perfect|minunat|bucuros|bucuroasa|"
    r"cu placere|great|thanks|awesome|excellent|happy|glad|frumos)\b|[👍🙂😊🙏👌❤😀😃☺🤝]"
)
NEGATIVE_TONE = re.compile(
    r"\b(spam\w*|bataie de joc|teapa|tepari|hoti|escroc\w*|penibil|ridicol|enervant|"
    r"deranj\w*|nesimtit\w*|obraznic\w*|inacceptabil|unacceptable|annoying|ridiculous|scam|"
    r"rusine|prostii|stupid|idiot\w*)\b|[😡🤬👎😠😤🙄]|!!"
)

# Typo-prone words that matter: a token one edit away is read as the word itself.
FUZZY = (
    "interesat",
    "interesata",
    "interesati",
    "interesate",
    "intereseaza",
    "interested",
    "interesting",
    "reclamatie",
    "reclamatii",
    "dezabonare",
    "dezabonati",
    "unsubscribe",
    "concediu",
    "multumesc",
    "multumim",
    "disappointed",
    "complaint",
)
FUZZY_SET = frozenset(FUZZY)


# --- language ----------------------------------------------------------------------

RO_WORDS = _words(
    """si sa nu da de la cu pe este e sunt suntem va ma mi ne ce cat cum pentru multumesc
    multumim mersi buna ziua ati aveti am avem care din mai doar foarte acum dar sau daca
    o un una unei ca vreau bine trimiteti pret sunati concediu nici fost fi poate aici pana
    dupa asta acest aceasta noi eu el ea lor lui ei imi il le despre deja inca unde cand
    cine rog interesat interesati intereseaza nevoie ferma firma firmei hectare motorina
    seminte grau porumb ingrasaminte revin birou salut dezabonare costa preturi tona
    numarul gresit sau ce oferta detalii mesaje mesajul nimic acolo voi vom ar fi iar"""
)
EN_WORDS = _words(
    """the and to of is i we you me my our your not no yes please thanks thank for with on
    at it this that be have has would could will can do does dont what how who when where
    interested interest office until back send more info information details call meeting
    price prices cost much hi hello sorry wrong number company supplier already remove
    unsubscribe email from about also just now next week right maybe year sounds tell know
    like good great sure out leave vacation reply automatic return farm free available
    noted an a am im are were was been nope yep yeah hey guys mate"""
)
RO_LETTERS = re.compile(r"[ăâîșşțţ]", re.IGNORECASE)


# --- trigger keywords --------------------------------------------------------------

KEYWORDS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(rf"\b(?:{pattern})\b"))
    for name, pattern in (
        ("urgent", r"urgen(t|ta|te|tei|tele|tly|cy)"),
        ("problema", r"(?P<h>problem\w*)"),
        ("reclamatie", r"reclamati\w*|reclamez|reclamam|reclamat|complaint\w*|complain\w*"),
        ("nemultumit", r"nemultumi\w*|unhappy|dissatisfied|disappointed"),
        ("pret", r"pret|pretu\w*|price\w*|pricing"),
        ("discount", r"discount\w*"),
        ("manager", r"manager\w*"),
        ("director", r"director\w*|directoare\w*"),
        ("avocat", r"avocat\w*|lawyer\w*|attorney\w*"),
        ("sef", r"sef|seful|sefului|sefa|sefii|boss"),
        ("anulare", r"anular\w*|anulati|anulez|anulam|anulat|cancel\w*"),
    )
)


# --- signals (routing needs them whatever the intent) -------------------------------------

# A complaint, even inside an opt-out: authorities, lawyers, data and consent, harassment,
# insults, and a request that had to be repeated.
COMPLAINT_SIGNAL = re.compile(
    r"\b(?:gdpr|anspdcp|anpc|protectia (datelor|consumatorului)|avocat\w*|lawyer\w*|"
    r"attorney\w*|politi[ae]\w*|police|reclamati\w*|reclam(ez|am|at)|plang\w*|complain\w*|"
    r"report\w*|raport(ez|am)|authorit\w*|autoritat\w*|judecat\w*|instant\w*|tribunal\w*|"
    r"court|sue|suing|legal action|data protection|spam\w*|hartui\w*|harass\w*|ilegal\w*|"
    r"illegal\w*|abuz\w*|abusive|de unde (aveti|ati luat|ati gasit|ai luat|ai)|"
    r"cine (v a|ti a|va|ti) dat|who gave you|where did you (get|find)|how did you get|"
    r"fara (\w+ )?(acord\w*|consimtamant\w*)|without (my |our )?(consent|permission)|"
    r"(nu|n) (v |va )?(am|mi am) (dat|acordat) (\w+ )?(acord\w*|consimtamant\w*)|"
    r"never (gave|consented|signed|subscribed|agreed|asked)|"
    r"(v|va|ti) (am|as) (mai )?(spus|scris|cerut|rugat|zis)|(am|i ve|i have|we ve|we have|"
    r"i|we) (mai |already |deja )?(cerut|asked|told|requested) (deja |already |before|"
    r"twice|you)|already (asked|told|requested)|(cate|how many) (ori|times)|"
    r"(a|pentru a) (doua|treia|patra|cincea|suta|n) oara|(second|third|fourth|fifth|"
    r"\d+(st|nd|rd|th)) time|(de|for the) (doua|trei|patru|cinci|zece|\d+) (ori|times)|"
    r"nesimtit\w*|obraznic\w*|escroc\w*|tepar\w*|hoti|bataie de joc|rusine|penibil|"
    r"disgrace\w*|shame\w*|inacceptabil|unacceptable|inadmisibil|revoltat\w*|harassment|"
    r"interzic\w*|not allowed to|no right to|(nu|n) (aveti|ai) (dreptul|voie)|"
    r"sa nu se (mai )?repete|(nu|n) (va|iti) permit|am mai (cerut|spus|scris|zis|rugat)|"
    r"de ce (tot|inca) (primesc|primim|imi scrieti|ne scrieti|trimiteti)|"
    r"sa nu (va|te) mai (aud|vad|prind)|(ma|ne) deranjeaza|annoying|intrusive|"
    r"dreptul (la|de) stergere|dreptul de a fi uitat|right to (erasure|be forgotten)|"
    # the law cited, or the data's lawfulness questioned
    r"2016 679|(art|articolul|article) 17|regulament\w* (ue|european|general)|"
    r"legea (506|190|363)|temei\w* legal|baza legala|legal basis|lawful basis|"
    r"prelucr\w* (\w+ )?(ilegal\w*|fara)|ancom|"
    # where the number or the data came from, what is held
    r"de unde (il|l|o|le|mi|imi|ne) (aveti|ai|ati luat|ati gasit|ati obtinut)|"
    r"(cum|de unde) (ati|ai) (dat de|gasit|ajuns la|obtinut|facut rost de|cules) (\w+ )?(mine|"
    r"noi|numarul|nr|datele|adresa|contactul|e ?mailul|telefonul)|(ati|mi ati|ne ati|ai) (luat|"
    r"obtinut|cules|cumparat|copiat|preluat) (\w+ )?(datele|numarul|nr|contactul|adresa|"
    r"e ?mailul)|ce date (\w+ )?(aveti|detineti|stocati|prelucrati|pastrati)|what (data|"
    r"information|details) do you (have|hold|keep|store)|(where|how) did you (get|find|obtain) "
    r"(my|our|this) (\w+ )?(number|e ?mail|details|data|contact\w*|address|phone|info\w*)|"
    r"who (gave|sold|shared|passed)|"
    # asked before and still written to
    r"(va|iti) repet|repet (\w+ )?(inca o data|pentru ultima|din nou)|a cata oara|"
    r"pentru ultima (data|oara)|for the last time|(am|v am) (mai )?(rugat|solicitat|cerut|spus|"
    r"scris|zis) (\w+ ){0,2}deja|deja (v )?am (rugat|solicitat|cerut|spus|scris|zis)|"
    r"tot (primesc|primim|imi scrieti|ne scrieti|imi trimiteti|ne trimiteti|ma sunati|"
    r"ma contactati|ne contactati)|inca (primesc|primim)|continuati sa|still (getting|"
    r"receiving|texting|messaging|sending|emailing|contacting|calling|writing)|(you|u) "
    r"(keep|kept) (sending|texting|messaging|emailing|calling|contacting|writing)|already "
    r"(unsubscribed|opted out)|(m am|ne am) (deja |mai )?(dezabonat|dezinscris)|"
    # consent never given
    r"(nu|n) (v )?(am|mi am|ne am) (\w+ )?(solicitat|cerut|acceptat|semnat|bifat|abonat|"
    r"inscris) (\w+ ){0,3}(niciodata|nimic|sa fiu|sa fim|mesaj\w*|oferte\w*|asta|astea)|"
    r"niciodata (nu )?(v )?(am|mi am|ne am) (solicitat|cerut|dat|acceptat|abonat)|"
    r"bataia? (asta |aceasta )?de joc|"
    # lawyers by their other names, insults, consent or authority never given
    r"solicitor\w*|barrister\w*|jurist\w*|(consilier\w*|departament\w*|casa) (de )?"
    r"(juridic\w*|avocatura)|penibil\w*|ridicol\w*|jalnic\w*|tupe\w*|neobrazat\w*|"
    r"impertinent\w*|idiot\w*|cretin\w*|(did not|didnt|have not|havent|never) (\w+ )?"
    r"(consent\w*|agree\w*|sign\w* up|opt\w* in|subscribe\w*)|(nu|n) (v )?(am|mi am|ne am) "
    r"(\w+ )?(autorizat|permis|dat voie|dat permisiunea)|fara (\w+ )?(permisiun\w*|autorizar\w*|"
    r"voie)|"
    # asked before, in other words
    r"reiter\w*|am mai solicitat|(am|v am) (mai )?(cerut|solicitat|rugat|spus|scris|zis) "
    r"(\w+ ){0,2}"
    r"(saptamana trecuta|luna trecuta|ieri|alaltaieri|anul trecut|de mai multe ori|inainte)|"
    r"(i|we|i ve|ive|i have|we have) (already )?(asked|told|requested|written) (\w+ ){0,2}(last|"
    r"before|already|twice|yesterday|ago|previously|earlier)|(mi|imi|ne|ma) (scrieti|trimiteti|"
    r"sunati|contactati) (\w+ )?din nou|iar (mi|imi|ne) (ati )?(scris|trimis|scrieti|trimiteti))\b"
)

# Irony and sarcasm: never answered automatically, a person reads them.
SARCASM_SIGNAL = re.compile(
    r"[🙄🙃😒😏😂🤣]|\b(?:exact (ce|asta) (\w+ ){0,2}(lipsea|trebuia|voiam|doream|asteptam)|"
    r"ce noroc( pe mine)?|abia (astept|asteptam)|ca si cum|porcii zboara|descoperit america|"
    r"mai sa cad|durere de (masea|cap)|yeah right|just what i (needed|wanted)|"
    r"exactly what i (needed|wanted)|oh (great|wow|joy|wonderful|fantastic|sure)|"
    r"so exciting|how (original|exciting|lovely)|what a (surprise|treat|joy)|lucky me|"
    r"nothing better to do|as if|slow clap|thanks a lot for|really appreciated|"
    r"(super|minunat\w*|perfect|bravo|felicitari|genial|excelent|wow|great|wonderful|"
    r"amazing|fantastic|love it|sure)\b.{0,50}\b(inca un|inca o|inca vreo|mai trimiteti|"
    r"al \w+lea|a \w+a oara|another|spam\w*|pe zi|daily|record)|(ha ?){2,}|haha\w*|lol|lmao|"
    r"vai\W+(ce|cat|cata|cati)|(sigur|desigur|bineinteles|evident|normal|super|minunat|"
    r"grozav|sure|of course|great|right|yeah|wow)\W*(\.\.\.|\.\. ))\b|\bnot\W*$|"
    r"[\"\u201e\u201c\u00ab][a-z]+[\"\u201d\u201c\u00bb]"
)

_MONTH_NAMES = (
    r"ianuarie|februarie|martie|aprilie|mai|iunie|iulie|august|septembrie|octombrie|"
    r"noiembrie|decembrie|ian|feb|mar|apr|iun|iul|aug|sep|sept|oct|noi|nov|dec|january|"
    r"february|march|april|may|june|july|september|october|november|december|jan|jun|jul"
)
# A concrete day or hour: "joi", "mâine la 10", "pe 14", "15 martie", "10:30", "3pm".
MEETING_TIME = re.compile(
    r"\b(?:luni|marti|miercuri|joi|vineri|sambata|duminica|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday|maine|poimaine|diseara|astazi|azi|today|tomorrow|"
    r"tonight|this (morning|afternoon|evening)|in seara asta|"
    r"\d{1,2}[./]\d{1,2}|(pe|on|the) \d{1,2}(st|nd|rd|th|a)?|"
    rf"\d{{1,2}} ({_MONTH_NAMES})|({_MONTH_NAMES}) \d{{1,2}}|"
    r"(la|ora|orele|pe la|dupa|dupa ora|inainte de|inainte de ora|intre|at|around|after|"
    r"before|between) \d{1,2}([:.]\d{2})?"
    r"(?! ?(ha|hectare|tone|tona|t|kg|lei|ron|euro|eur|%|km|litri|l|saci)\b)|"
    r"\d{1,2}[:.]\d{2}|\d{1,2} ?(am|pm)|\d{1,2} ?h)\b"
)
