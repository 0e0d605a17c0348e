"""The opt-out vocabulary: what people write when they mean "stop writing to me".

Regexes over a clause's tokens joined by single spaces ("Ștergeți-mă!" → "stergeti ma",
"don't" → "dont"), written as groups of meaning (a verb of reaching or removing, what is
removed, from where; a wish, negated), never as sentences. `outreach.optout` reads them;
the offline triage decides its "unsubscribe" intent with `outreach.optout.asks_to_stop`,
so both read this one vocabulary.

"mai" (any more) is what makes most Romanian ones a stop: "nu mă sunați, scrieți-mi" is a
channel preference, "nu mă mai sunați" is a stop. A few guards keep the other senses of
the same words out ("stop by the farm", "stopați comanda", "opriți-vă pe la fermă", "nu mă
scoateți din listă", "nu vreau să primesc factura pe hârtie"); they are narrow on purpose:
a missed stop is a compliance failure, a false one only loses a lead.
"""

from __future__ import annotations

import re

# --- word groups ------------------------------------------------------------------------

# Romanian verbs of reaching someone (second person, imperative or infinitive), and the
# English ones Romanians conjugate ("send-uiți", "textați").
_RO_REACH = (
    r"trimite\w*|trimet\w*|trimiti|scrie\w*|scrii\w*|suna|sunati|sunat|contact\w*|deranj\w*|spam\w*|"
    r"insist\w*|hartui\w*|bombard\w*|bate\w* la cap|agas\w*|sacai\w*|adresati|reveniti|"
    r"indrazni\w*|luati (legatura|contact\w*)|apelati|includ\w*|adaug\w*|abord\w*|"
    r"pune\w* (pe|in) (lista|liste|grup)\w*|send\w*|text\w*|messag\w*|"
    r"ocupa\w* (timpul|telefonul)|"
    r"(expedi|transmit)\w* (\w+ )?(mesaj|ofert|e ?mail|sms|reclam|nimic|spam)\w*|"
    r"bag\w* (in|pe) (lista|liste|baza|grup|campani)\w*|plictisi\w*|enerv\w*|umple\w*|tracas\w*|"
    r"fac\w* (spam|oferte|reclam\w*|publicitate)|dati (\w+ )?(mesaj|sms|telefo|apel|e ?mail)\w*|"
    r"(ma |ne )(cautati|cauta)|folositi (\w+ ){0,2}(numar\w*|nr|datele|adresa|contactul)|"
    r"utilizati (\w+ ){0,2}(numar\w*|nr|datele|adresa|contactul)"
)
# The writer speaking of themselves ("nu vă mai deranjez, vă sun eu"): not a stop.
_FIRST_PERSON = (
    r"(?!(deranjez|deranjam|contactez|contactam|insist|insistam|adaug|adaugam|includ|"
    r"includem|textez|sendui)\b)"
)
# Wanting, in every person and mood that is used to refuse ("nu mai țin să primesc").
_RO_WANT = (
    r"vreau|vrem|vrea|vor|voiam|vroiam|doresc|dorim|doreste|doriti|dori|doream|tin|tinem|"
    r"(as|am) (vrea|dori)"
)
# What is sent: messages, offers, ads, calls (Romanian, English and the usual typos).
_MSGS = (
    r"mes+a[gj]\w*|msj\w*|msg\w*|sms\w*|texts|e ?mailuri\w*|emails|oferte\w*|reclam\w*|"
    r"apeluri\w*|notificar\w*|spam\w*|newsletter\w*|comunicar\w*|promo\w*|publicitate|"
    r"marketing|calls"
)
# Things a customer is glad to get, though not by this means ("factura pe hârtie"): a
# "don't want to receive" about them is a preference, not a stop.
_GOODS = (
    r"(?! ((the|your|my|any|vreo|alte|alt|alta|acest\w*|aceste\w*) )?(factur|mostr|colet|marf|"
    r"produs|comand|livrar|sample|invoice|bill|parcel|deliver|order|goods|seminte|samant|"
    r"ingrasam|echipament|utilaj|piese|plat|bani|paper|printed|hartie|tiparit|porumb|grau|"
    r"floare\w* soarelui|floarea|rapit|soia|orz|ovaz|sfecl|cartof|uree|azotat|motorin|erbicid|"
    r"insecticid|fungicid|pesticid|catalog)\w*)"
)
# Work that is stopped or paused ("stopați comanda", "opriți livrarea").
_WORK = (
    r"(?! (\w+ ){0,2}(comand|livrar|factur|plat|transport|masin|camion|tractor|utilaj|"
    r"lucrar|executi|irigat|recolt|seman|stropit|productie|contract)\w*)"
)
# Romanian verbs of removing or erasing, and what is removed.
_RO_REMOVE = r"sterg\w*|scoat\w*|scoate\w*|elimin\w*|exclud\w*|radiati"
_RO_ERASE = r"sterg\w*|elimin\w*|exclud\w*"  # ("scoateți-mi o factură" is "issue me")
_RO_DATA = (
    r"numar\w*|nr|date|datele|adresa|adresele|e ?mail\w*|contact\w*|telefon\w*|informati\w*|"
    r"detalii\w*|profil\w*|contul|din|de pe|tot|toate|orice"
)
_RO_WHAT = r"numar\w*|nr|datele|adresa|e ?mailul|contactul|telefonul|din|de pe"
_RO_REMOVED = (
    rf"ma|ne|(mi|imi) (\w+ )?({_RO_DATA})|(mi|imi)$|le$|numarul|nr|datele|date|"
    r"adresa (mea|noastra|de e ?mail|asta|aceasta)|"
    r"e ?mailul|contactul|contactele|telefonul|acest|aceasta|asta|tot|toate|informatiile|l"
)
_RO_REMOVED_SCOATE = (
    r"ma|ne|l|numarul|nr|datele|date|adresa (mea|noastra|de e ?mail)|e ?mailul|contactul|"
    r"contactele|telefonul|"
    rf"acest|aceasta|asta|(mi|imi|ne) (\w+ )?({_RO_WHAT})"
)
# Where a contact is kept: a list, a database, an address book.
_WHERE = (
    r"lista|listele|liste|baza|bazele|evident\w*|agenda|grup\w*|newsletter\w*|campani\w*|"
    r"contacte\w*|sistem\w*|crm|abonati|difuzare|list|lists|database|mailing|contacts|"
    r"records|system"
)
# English verbs of reaching someone.
_EN_REACH = (
    r"contact\w*|messag\w*|text\w*|txt\w*|msg\w*|dm|dms|e ?mail\w*|mail\w*|writ\w*|sms\w*|"
    r"whatsapp\w*|spam\w*|bother\w*|pester\w*|harass\w*|reach\w*( out)?|ping\w*|send\w*|sent|"
    r"bug\w*|annoy\w*"
)
_EN_WHAT = (
    r"messages|emails|e mails|texts|sms|calls|offers|spam|marketing|contact|communications?|"
    r"mesaje|mesajele|oferte|msgs?|msj\w*|sending|messaging|texting|e ?mailing|contacting|calling"
)
# A document or an item, not a contact ("delete the old offer from your system").
_DOCUMENT_WORDS = (
    r"((the|this|that|my|our|your|old|new|last|a|an|o|un|vechea|noua|ultima) ){0,2}(oferta|offer|"
    r"comanda|order|factura|invoice|atasament\w*|attachment|fisier\w*|file|document\w*|poza|"
    r"photo|item|produs\w*|articol\w*|pozitia|linia|rand\w*|avizul|chitanta|extras\w*)\b"
)
_DOCUMENT = rf"(?!{_DOCUMENT_WORDS})"
# Not a removal: "nu mă scoateți din listă", "don't remove me" (but "de ce nu mă scoateți",
# "dacă nu mă ștergeți" are).
_KEEP = (
    r"(?<!de ce )(?<!daca )(?<!oare )\b(nu|n) (ma|ne|mi|il|o) (scoat|sterg|elimin|exclud|"
    r"dezabon|radia)\w*|(?<!why )(?<!if you )\b(dont|do not|never|please dont) (remove|delete|"
    r"unsubscribe|drop|stop|take (me|us) off)\b|\bkeep (me|us) (on|in)\b"
)

# --- the stop patterns ------------------------------------------------------------------

STOP_PATTERNS: tuple[str, ...] = (
    # unsubscribe words (and their usual typos)
    rf"de[sz]abon\w*|dez?inscri\w*|un ?su\w*s\w*c?r?i\w*b\w*|unsub\w*|opt ?out\w*|"
    rf"opt (me|us) out|(stopati|stopeaza){_WORK}|stopa (mesaj\w*|trimiter\w*)",
    # nu (mă) mai trimiteți / scrieți / sunați / contactați / deranjați ...
    rf"(?<!de ce )(nu|n|no(?= (ma|ne|mi|imi|va) )) ((ma|ne|mi|imi|va|m|v)( ati| ai| ar)? )?mai "
    r"(ma |ne |mi |imi )?"
    rf"{_FIRST_PERSON}"
    rf"({_RO_REACH}){_GOODS}",
    r"^(va rog |te rog )?nu mai$|sa nu (va |te )?mai prind|iesiti din (telefonul|viata|"
    r"inbox\w*|whatsapp\w*)|(nu|n) (mai )?(vreau|vrem|doresc|dorim) sa (mai )?(am|avem) de a face",
    r"(nu|n) (ma|ne|mi|imi) (contact(ati|a|ezi|eze)|deranj(ati|a|ezi|eze)|spam\w*|hartui\w*|"
    r"bombard\w*|adaug(ati|a)|trimite\w* (\w+ )?(mesaje|nimic|sms\w*|spam|reclame|oferte))\b",
    # nu (mai) vreau / doresc / țin să (mai) primesc / fiu contactat / mesaje / oferte ...
    rf"(nu|n) (mai )?({_RO_WANT}) (sa )?(mai )?(primesc\w*|primim|primeasca|primi|aud|auzim|"
    r"vad|vedem|apar|aparem|figurez|figuram|mesaje\w*|sms\w*|e ?mailuri|e ?mail\w*|oferte|"
    r"ofertele|reclame|publicitate|apeluri|notificari|spam|contact|"
    r"(fiu|fim|fie|mai fiu|mai fim|mai fie) (contactat\w*|sunat\w*|deranjat\w*|spamat\w*|inclus\w*|"
    r"trecut\w*|inscris\w*|abonat\w*|abordat\w*|in (lista|baza|evidenta|legatura|contact)|"
    rf"pe (lista|listele))){_GOODS}",
    rf"(nu|n) (mai )?({_RO_WANT}) sa (mai )?(fac|facem|faca|fiu|fim|raman|ramanem) (parte )?"
    rf"(din|in|pe) (\w+ ){{0,2}}({_WHERE})|(nu|n) (mai )?({_RO_WANT}) (\w+ ){{0,2}}"
    r"(primirea|receptionarea|trimiterea|transmiterea)",
    r"(nu )?(mai )?am chef de (\w+ )?(mesaj\w*|ofert\w*|voi|apeluri|reclam\w*|spam\w*)|"
    r"(nu|n) (ma|ne) (mai )?intereseaza (\w+ )?(mesaj\w*|msj\w*|sms\w*|apeluri|reclame|"
    r"publicitate|newsletter\w*|spam\w*)|fara whatsapp|(nu|not) (pe|on|via) whatsapp|"
    r"(dreptul|dreptului) (la|de) (stergere|a fi uitat)|"
    r"mai lasati (ma|ne)|(dati|da) (ma|ne|mi|ne) pace|carati va|"
    rf"(ma|ne) retrag\w* din (\w+ )?({_WHERE})|"
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
    r"nu (va|iti) permit sa|lasa\w* (ma|ne) (odata |si |voi )?cu (\w+ )?(ofert\w*|mesaj\w*|"
    r"reclam\w*|spam\w*|"
    r"apeluri|voi|asta)|sa nu (va |te )?mai (vad|aud)|sa nu se (mai )?repete|"
    rf"renunta\w* (sa|la a) (\w+ ){{0,2}}({_RO_REACH})",
    rf"(nu|n) mai (doresc|dorim|doreste){_GOODS}|"
    r"(nu|n) (mai )?(e|este) (cazul|nevoie) sa (ma |mi |ne )?"
    r"(mai )?(ma |mi |ne )?(contact\w*|scrie\w*|trimite\w*|deranj\w*|spam\w*|insist\w*)"
    r"(?! (\w+ )?(oferta|factura|contractul|documentul|documentele|catalogul|mostra|mostrele|"
    r"detaliile|actele|din nou|iar|inca o data|o|l|le)\b)|"
    rf"termina\w* (cu|odata cu) (\w+ ){{0,3}}({_MSGS}|voi)|^(mai )?termina(ti)? odata$|"
    r"(?<!nu )(?<!n )(ma|ne) deranjeaza (\w+ )?(mesaj\w*|apeluri|sms\w*|"
    r"voi|ofert\w*)|(nu|n) mai (vreau|vrem)( nimic|$)|"
    r"(nu|n) (ma|ne) mai (cautati|cauta)|"
    rf"(nu|n) (mai )?({_RO_WANT}) (\w+ ){{0,2}}({_MSGS})",
    r"sa nu mai (primesc\w*|primim|fiu|fim|apar|aparem|figurez|figuram|aud)|"
    r"a nu (mai )?fi (contactat\w*|sunat\w*|deranjat\w*|inclus\w*)",
    rf"(nu|n) (mai )?({_RO_WANT}) sa (ma|ne|mi|imi) (mai )?({_RO_REACH})",
    # scutiți-mă (de mesaje), slăbiți-mă: spare me, leave me be (not "scutiți-mă de TVA")
    r"(scutiti|scuteste|scuti) (ma|ne)\b(?! (\w+ ){0,2}(tva|impozit\w*|tax\w*|accize|plata))|"
    r"(ma|ne) (scutiti|scuti)\b(?! (\w+ ){0,2}(tva|impozit\w*|tax\w*|accize|plata))|"
    r"(slabiti|slabeste) (ma|ne)\b|(ma|ne) slabiti\b",
    # refusing, objecting, consent never given
    r"(nu|n) (sunt|suntem) de acord sa (mai )?(primesc|primim|fiu|fim|ma|mi|imi|ne)|"
    r"(nu|n) (accept|acceptam|accepta) (\w+ )?(mesaje|oferte|apeluri|sms\w*|publicitate|"
    r"reclame|spam|contact\w*)|refuz (sa (mai )?primesc|orice|mesajele|comunicar\w*|"
    r"contact\w*)|(ma|ne) opun\w*|dreptul\w* (la|de) opozitie|object\w* to (the |any |further )?"
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
    rf"(ma|ne|il) ({_RO_REMOVE})\b(?! {_DOCUMENT_WORDS})|"
    rf"(mi|imi) ({_RO_ERASE})( (\w+ )?({_RO_DATA})\b|$)|"
    rf"(mi|imi) scoat\w* (\w+ )?({_RO_WHAT})",
    r"(?<!am )(?<!a )(?<!au )anul\w* (\w+ )?(abonar\w*|abonament\w*|inscrier\w*)|"
    r"cancel (my |our |the )?"
    r"subscription|renunt (\w+ )?la (mesaj\w*|abonar\w*|abonament\w*|newsletter\w*|oferte\w*)|"
    r"(sa )?(ies|iesim) din (lista|listele|baza|evident\w*)",
    # scoateți-l pe tata din listă / remove me din lista / take this number off your list
    r"(scoat\w*|scoate\w*|sterg\w*|elimin\w*|retrag\w*|radia\w*|exclud\w*|remove|delete|take|"
    rf"drop|strike|cross) {_DOCUMENT}(\w+ ){{0,4}}(din|de pe|from|off|out of) (\w+ ){{0,2}}"
    rf"({_WHERE})\b|"
    r"^(please |pls |kindly )?(remove|unsubscribe|delete)( me| us| this number)?( please| pls)?$",
    r"(stergerea|eliminarea|scoaterea|radierea|anonimizarea|excluderea) (\w+ )?(datelor|"
    r"numarului|mea|noastra|contului|adresei|contactului|informatiilor|din|de pe|lor)|"
    r"(sa|sa mai) (fiu|fim) (sters|stearsa|stersi|scos|scoasa|scosi|eliminat\w*)",
    # să-mi fie șterse datele / numărul să fie șters din listă / vreau să fie șterse
    r"(sa|a) (mi |imi |ne |le )?(fie|fiu|fim) (sters\w*|stearsa|sterse|eliminat\w*|radiat\w*|"
    r"anonimizat\w*|exclus\w*)( (\w+ ){0,2}(datele|numarul|nr|adresa|contactul|e ?mailul|"
    rf"informatiile)\b| (\w+ )?din (\w+ )?({_WHERE})\b|$)|"
    r"(mi|imi|ne) dispara (\w+ )?(numarul|nr|datele|adresa|contactul)|"
    r"anonimiza\w* (mi|ne) (datele|numarul)|(mi|ne) anonimiza\w* (datele|numarul)",
    r"(dati|da) (ma|ne) (jos|afara)|(dati|da|faceti|fa) (mi|ne|imi) (\w+ )?(delete|remove|"
    r"unsubscribe|dezabonare|block)|(delete|remove|unsubscribe|block)\w* "
    r"(uiti |uieste |ati |ti )?(mi|ma|ne) (\w+ )?"
    r"(numarul|nr|datele|contactul|din|de pe)",
    r"(retrag|retrageti|retragem|retragerea|revoc|revocam|revocati|revocarea|imi retrag|"
    r"ne retragem) (\w+ ){0,3}(consimtamant\w*|acord|acordul|acordului)\b|withdraw\w* (\w+ )?"
    r"consent|(withdrawal|revocation) of (\w+ )?consent|(nu|n) (imi |isi |ne |va |v |iti |le )?"
    r"(dau|dam|da|acord\w*|ofer\w*) (\w+ )?(acordul|consimtamantul|permisiunea)|(nu|n) (va|v|iti) "
    r"(dau|dam) voie",
    # lăsați-mă în pace / gata cu mesajele / ajunge cu spam / fără mesaje / încetați / opriți
    r"lasa\w* (\w+ ){0,2}(in|n) pace|(du te|duceti va|mergeti|mars) (\w+ )?(dracu\w*|naiba)|"
    rf"(gata|ajunge|destul|basta) cu (\w+ ){{0,2}}({_MSGS}|voi)|fara (mai multe |alte )?"
    r"(contact\w*|mesaje|sms\w*|spam|oferte|apeluri|reclame)|"
    r"incetati\w*|inceteaza\w*|(opri\w*|opres\w*|opreste\w*|sista\w*|sisteaza|suspend\w*|"
    r"pune\w* capat( la)?) (\w+ ){0,2}(mesaj\w*|"
    r"trimiter\w*|sms\w*|spam\w*|notific\w*|apel\w*|campani\w*|ofert\w*|reclam\w*|comunic\w*|"
    r"contact\w*)|(opriti|opreste) le$|opriti va(?! (pe|la|in|cand|putin|o clipa|sa)\b)",
    r"(va |te )?(blochez|blocam|raportez|raportam) (\w+ ){0,2}(spam|numarul|voi)|"
    r"(va|te) (blochez|blocam)|^(blochez|blocam)( acum| imediat)?$|(v|va|te) am blocat|"
    r"(pun|bag|trec|adaug) (\w+ )?(la|in|pe) "
    r"(blocat\w*|spam|lista neagra|blacklist)",
    r"sictir\w*|dispar(eti|i)\b|^mars( de aici)?$|mars de (aici|pe)",
    r"nu (aveti|ai) (voie|dreptul) sa (ma|mi|imi|ne) (\w+ )?(contact\w*|scri\w*|trimit\w*|"
    r"sun\w*|folosi\w*)",
    r"de ce (tot|inca|mai|continuati sa) (primesc|primim|imi trimiteti|ne trimiteti|"
    r"imi scrieti|trimiteti)",
    # English: remove / delete / take me off, and the data itself
    r"(remove|delete|erase|drop|scrub|purge|wipe|unlist) (me|us|my|our|all my|all our|"
    r"this (number|email|address|contact|phone)|the number)\b",
    r"(delete|erase|remove|wipe|drop|lose|bin|scrap|purge) (it|that|them)( now| immediately| asap|"
    r" please| pls| right away| at once| today)*$|(take|get|strike|"
    r"cross|scratch) (me|us|my \w+|our \w+|this \w+) (off|out of)",
    r"(deletion|removal|erasure) of (my|our|all|the personal)|right to (erasure|be forgotten)|"
    r"(lose|forget) (my|our) (number|email|details|contact)|forget (about )?(me|us)\b",
    r"(be|been|get|got) (removed|deleted|unsubscribed|taken off)",
    # English: don't / never / stop contacting, no more messages, I no longer wish to ...
    rf"(dont|do not|never|not to|pls dont|please dont) (ever )?({_EN_REACH})( (me|us|this|"
    r"again|anymore|any more|here|to me|to us|to this|him|her|(my|our) (number|phone|mobile|"
    r"cell|e ?mail|address|inbox))|( it| them)( again| anymore| any more)?$|$)",
    r"(dont|do not|no need to|never) (\w+ )?follow ?up|no need to (contact|message|text|"
    r"email|call|write|reach|follow)|not (to )?be (contacted|messaged|emailed|texted|called|"
    r"bothered|disturbed)|no point (in )?(messaging|writing|contacting|texting|emailing)|"
    r"(nu|n) (mai )?(are|e|este) (niciun |nici un )?rost sa (ma |ne |mi |imi )?(mai )?"
    r"(ma |ne |mi |imi )?"
    rf"({_RO_REACH})|degeaba (\w+ )?(ma |ne |mi |imi )?mai ({_RO_REACH})|"
    r"(nu|n) (mai )?insist(ati|a|i)\b|(am )?blocat (numarul|contactul|firma|va)|"
    r"(blocking|blocked) (you|this|your)|(raportat|reported) (\w+ )?(ca |as )?spam",
    r"(dont|do not|never|not to) (ever )?(call|ring|phone) (me|us|this)( \w+)? (again|"
    r"anymore|any more|ever)",
    rf"(stop|quit|stopped|stopping) (it|this|now|all|pls|please|({_EN_REACH})|call\w*)\b"
    rf"{_GOODS}",
    r"(dont|do not) call$|(dont|do not) add (me|us|my|our)|(do not|dont) (contact|call|disturb) "
    r"(list|register)|robinson|(messages|texts|emails|calls) (\w+ )?(are|is) (\w+ )?(annoying|"
    r"unwanted|spam|intrusive|harassment)|"
    r"(please|pls|kindly|mind) (not|no longer) (contact|messag|text|e ?mail|call|writ)\w*|"
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
    r"(my|our|this) (\w+ ){0,2}(data|details|number|information|info|e ?mail|address|contact\w*|"
    r"phone|name|records?) (\w+ )?(deleted|removed|erased|wiped|purged|taken off)|"
    r"(delete|erase|remove|wipe) (all|any|everything)( \w+){0,5} (about|on|of) (me|us)",
    rf"(no|nothing) (more|further) (\w+ )?({_EN_WHAT})|enough (with )?(the |your )?({_EN_WHAT})",
    r"(mesaj\w*|ofert\w*|apeluri\w*|sms\w*) (\w+ ){0,2}(nu|n) (sunt|e|este|mai sunt) (dorit\w*|"
    r"binevenit\w*|solicitat\w*|acceptat\w*)|(nu|n) (mai )?(aveti|primiti) (\w+ )?(acordul|"
    r"consimtamantul|permisiunea)|refrain from (\w+ ){0,2}(contact\w*|messag\w*|text\w*|"
    r"e ?mail\w*|call\w*|writ\w*)",
    r"(no longer|dont|do not|doesnt|does not|never|not) (want|wish|care|like|need)\w* "
    r"(to )?(be )?"
    r"(receive\w*|recieve\w*|receiving|contacted|messaged|emailed|texted|called|hear from|"
    rf"getting|get (any|more|these|your|further|such|{_EN_WHAT})|any (more |further )?"
    rf"({_EN_WHAT})|((these|your|more|further|such|any) ){{1,3}}({_EN_WHAT})){_GOODS}|"
    r"(no longer|dont|do not|not) (want|wish|like)\w* to (be|stay|remain) (on|in|part of|"
    r"subscribed|included|listed)|(dont|do not|no longer) (want|need) (these|those|them|"
    r"any of (this|these|it|them))( any ?more| again)?$",
    r"(rather|prefer|appreciate it if|grateful if|would like it if) (you|u) (didnt|did not|"
    rf"dont|wouldnt|would not|stopped|no longer|not) (\w+ )?({_EN_REACH}|call\w*)",
    r"not interested in (receiving|getting|hearing)|(cease|desist|discontinue)\w*",
    r"leave (me|us) (alone|be)|cut it out|knock it off|^back off$|get off my (phone|back|case)|"
    r"go away|get lost|buzz off|piss off|f off|fuck off",
    r"(block|report) (you|your number|this number|this as spam|you as spam)|"
    r"(reported|marked) (you |this )?as spam",
    # administrative Romanian: the request as a noun ("vă solicităm încetarea oricărei
    # comunicări", "refuzul nostru de a mai primi oferte", "nu mai prelucrați datele mele")
    r"(incetarea|incetarii|oprirea|opririi|sistarea|sistarii|suspendarea|intreruperea|"
    r"stoparea) (\w+ ){0,2}((comunicar|trimiter|transmiter|expedier|mesaj|contact|apel|sms|"
    r"ofert|reclam|notific|corespondent|publicit)\w*|prelucrar\w* (\w+ )?(datelor|numarului|"
    r"adresei))|"
    r"refuz\w* (\w+ ){0,3}(de )?a (mai )?(primi|fi (contactat|sunat|inclus|deranjat)\w*)"
    rf"{_GOODS}|"
    r"(nu|n) (mai )?prelucra\w* (\w+ )?(datele|numarul|adresa|date) (mele|meu|mea|noastre|"
    r"nostru|noastra|personale|de contact)",
    # "lăsați-mă" on its own; "nu dorim colaborare și nici alte mesaje"
    r"^(va rog |te rog )?(lasati|lasa) (ma|ne)( va rog| te rog| domnule| doamna| odata| acum|"
    r" mersi| multumesc)*$|"
    rf"(nu|n) (mai )?({_RO_WANT}) (\w+ ){{0,3}}(si )?nici (\w+ )?({_MSGS})",
    # the English of those who learnt it late ("please not send me more", "i not want
    # message", "we are not wish more emails")
    rf"(you|u|please|pls|plz|kindly) (do )?not (\w+ )?({_EN_REACH}|call\w*)( (me|us|this|"
    rf"again|more|anymore|any more)\b|$){_GOODS}|"
    r"\b(i|we) (am |are |do |does )?not (want|wish|like)\w* ((to )?(be )?(receiv\w*|reciev\w*|"
    rf"contacted)|(\w+ ){{0,2}}(messages?|msgs?|offers|e ?mails|sms|texts)\b){_GOODS}",
)
STOP = re.compile(rf"\b(?:{'|'.join(STOP_PATTERNS)})\b")
KEEP = re.compile(_KEEP)

# A contact preference, not a stop: the clause restricts *when*, *how* or *on which line*
# ("nu mai sunați pe fix", "nu mă deranjați în weekend", "nu ne contactați decât pe mobil",
# "nu vreau mesaje vocale"),
# unless the text says never / at all. "Decât pe email" is not one: on WhatsApp it is a
# WhatsApp opt-out (opt-outs are per channel).
QUALIFIED = re.compile(
    r"\b(?:pe (telefonul |numarul )?fix|numarul fix|linia fixa|landline|in weekend\w*|"
    r"sambata|duminica|noaptea|seara|dimineata|(inainte|dupa) (de )?(ora )?\d+|intre orele|"
    r"in timpul (programului|orelor|zilei|lucrului)|(decat|doar|numai) pe (mobil|whatsapp|"
    r"telefon)\w*|before \d+|"
    r"after \d+|on weekends?|at night|in the evening|cu vizit\w*|neanuntat\w*|"
    r"fara (programare|sa anuntati)|vocal\w*|audio|voice (message|note|mail)\w*)\b"
)
ABSOLUTE = re.compile(
    r"\b(?:nici|niciodata|never|deloc|at all|vreodata|ever|nimic|nothing|sub nicio forma|"
    r"in niciun fel)\b"
)

# "STOP" on its own (SMS taught everyone), anywhere in the text, but not "stop by the
# farm", "one-stop shop", "nonstop", "bus stop", "stopul de la intersecție", "don't stop
# sending", "am pus stop la irigații" (a stop *to messages* still is one).
STOP_WORD = re.compile(
    r"(?<!\bone )(?<!\bone-)(?<!\bnon )(?<!\bnon-)(?<!\bbus )(?<!\bfull )(?<!\bpit )"
    r"(?<!\btruck )(?<!\bun )(?<!\bdon't )(?<!\bdont )(?<!\bdo not )(?<!\bnever )(?<!\bnot )"
    r"(?<!\bwon't )(?<!\bwont )(?<!\bcan't )(?<!\bcant )\bsto+p+\b"
    r"(?! (by|in|over|at|on|off|ul|ului|cadru|and go|loss|sign)\b)(?!-ul\b)"
    r"(?! la (?!(mesaj|sms|spam|ofert|apel|reclam|voi|tot|orice|contact|mail|e-?mail|whatsapp|"
    r"notific)))(?! (sending|send|mailing|posting|shipping) ((the|your|my|any|these) )?(invoice|"
    r"bill|order|parcel|sample|goods|deliver|paper|printed)\w*)"
)
# The whole text, once every non-letter is gone: "S T O P", "s.t.o.p", "Un-subscribe".
SQUEEZED = re.compile(
    r"^(sto+p+|unsub\w*|de[sz]abon\w*|opt ?out|remove(me)?|deleteme|blocked|blocat)$"
)
# The whole reply is one word of refusal ("Gata.", "Ajunge!", "Destul!"): "gata, am trimis
# comanda" is not.
WHOLE = re.compile(
    r"^(gata|ajunge|destul|basta|enough|terminati|incetati)( odata| acum| va rog| te rog| "
    r"multumesc| mersi| pa| gata| ajunge| destul| cu asta| please| thanks)*$"
)
# Nothing but a stop sign.
STOP_SIGNS = re.compile(r"^[\s\W]*[🛑⛔🚫][\s\W🛑⛔🚫]*$")

# "If you contact me again ...", "dacă mai primesc un mesaj ...", "încă un mesaj și ...":
# a stop when the text threatens something (a complaint, a lawyer, the police, a report),
# or when the contact itself is called a nuisance.
CONDITIONAL = re.compile(
    r"\b(?:daca (\w+ ){0,2}mai (\w+ ){0,2}(primesc\w*|primi\w*|primim|vad|aud|apar\w*|vin\w*|"
    r"ajung\w*|trimite\w*|scrie\w*|sun\w*|contact\w*|deranj\w*|spam\w*|caut\w*|insist\w*|"
    r"reven\w*)|(in cazul in care|in caz ca|caz in care) (\w+ ){0,2}mai|"
    r"daca nu (ma|ne|mi|imi) (scoat|sterg|elimin|dezabon|radia)\w*|daca nu (incetati|opriti|"
    r"terminati|va opriti|renuntati)|if you (dont|do not) (stop|remove|delete|unsubscribe|take)|"
    r"daca (\w+ ){0,3}(din nou|inca o data|vreodata)|(din nou|inca o data) daca|"
    r"(inca|macar) un (singur )?(mesaj|sms|e ?mail|mail|apel|telefon)|(inca|doar|macar) o "
    r"(singura )?(data|oara) si|la (urmatorul|inca un) "
    r"(mesaj|sms|e ?mail|apel)|orice (alt|nou|viitor) (mesaj|sms|e ?mail|apel|contact)\w*|"
    r"orice (mesaj|sms|e ?mail|apel|contact)\w* (viitor|ulterior)\w*|"
    r"if (you|u|your \w+|anyone|i|we) (\w+ ){0,3}(contact|message|text|e ?mail|mail|call|"
    r"write|spam|bother|send|ping|reach|get|receive|hear|see)\w*|"
    r"(one|1) more (message|text|email|e mail|call|sms)|data viitoare|next time|"
    r"keep (it|this) up|mai incercati|(do|try) (it|that|this) (again|one more time)|"
    r"again and (i|we|you|my|ill|i ll|we ll|youll|you ll)|"
    r"(any|every) (further|future|other|more) (contact|message|text|email|e mail|call)s?|"
    r"should (you|i|we) (\w+ ){0,2}(contact|message|text|email|call|write|receive|get|hear)|"
    r"(another|next) (message|text|email|e mail|call|sms)|"
    r"(contact|message|text|email|call|write to) (me|us) again|"
    r"mai (\w+ )?(trimite\w*|scrie\w*|suna\w*)( mi| ne| ma)? (un|o|inca un|inca o) (\w+ )?"
    r"(mesaj|sms|data|e ?mail|apel)\w* si|if (this|it) (continues|keeps|goes on|happens again|"
    r"persists)|daca (mai )?(continuati|continua)|daca (se )?(mai )?repeta)\b"
)
NUISANCE = re.compile(
    r"\b(?:mai (ma |ne )?(deranj|spam|hartui|bate)\w*|o singura data|inca o data|o data$|"
    r"one more time|ever again)\b"
)
THREAT = re.compile(
    r"\b(?:reclam\w*|plang\w*|anpc|anspdcp|ancom|garda|protectia datelor|autoritat\w*|"
    r"avocat\w*|judecat\w*|instant\w*|tribunal\w*|justiti\w*|procur\w*|parchet\w*|"
    r"politi\w*|raport\w*|report\w*|denunt\w*|sesiz\w*|penal\w*|amend\w*|blochez|"
    r"blocam|block\w*|lawyer\w*|attorney\w*|sue|suing|court|legal|police|authorit\w*|gdpr|"
    r"regulator\w*|ombudsman|prosecut\w*|escalat\w*|solicitor\w*|barrister\w*|jurist\w*|"
    r"juridic\w*|"
    r"complain\w*|fined?|regret\w*|pare rau|vedeti voi|o sa vedeti|see what happens|"
    r"consequences|consecinte|be sorry|(ce|o sa) pat\w*|you ll see|you will see)\b"
)
# Typo-prone words of the vocabulary: a token one edit away is read as the word.
FUZZY_STOP_WORDS = (
    "unsubscribe",
    "dezabonare",
    "dezabonati",
    "contactati",
    "trimiteti",
    "deranjati",
    "stergeti",
    "scoateti",
)
