"""A second, independent batch of opt-out replies and look-alikes (issue #10: opt-out recall
on the many ways people really ask), from angles the first batches (`optout_fresh.py`)
under-covered: long emails with the stop in the middle or in a P.S., replies that quote our
message, forwards, signatures and legal disclaimers after the stop, formal administrative
Romanian, older farmers' phonetic spelling and dialect, voice dictation, transliterations
("trimitetzi", "shtergeti"), capitals with emoji, Romanian with English words, non-native
English, very short replies, a company's voice, withdrawals of consent, every spelling of
"dezabonare"/"unsubscribe", and complaints that also ask to stop.

Written for this from scratch and never derived from `triage_heldout.py`, which is not
read. It is NOT used to train the intent model. Measured once, on the code of commit
51531a6, before anything was changed (stops in every writing of `test_optout_round2.py`:
as written, legacy cedilla, no diacritics, combining marks, the cp1250 code page read as
Windows-1252, UTF-8 read as Windows-1252, no-break spaces with zero-width characters,
fullwidth letters):

* stops heard as written: 166/191 (86.9 %); in every one of the nine writings: 55/191.
  Per writing: as written, cedilla, no diacritics, both combining forms and fullwidth
  166/191 each; cp1250 read as Windows-1252 156/181 (ten with emoji have no such form);
  UTF-8 read as Windows-1252 163/189 (an emoji came back as "ðŸ›‘"); no-break spaces with
  zero-width characters and soft hyphens 56/191 (a zero-width character split words).
  Leaving that writing aside, 165/191 stops were heard in every other writing.
* look-alikes taken for a stop: 9/49 (18.4 %): two replies whose only "stop" was a legal
  disclaimer or a GDPR notice in the signature, a long email with a disclaimer, "nu mai
  doresc porumb, doresc floarea-soarelui", "nu mai trimiteți catalogul, ... trimiteți
  lista de prețuri", "mă retrag din afacere", "nu vreau mesaje vocale, scrieți-mi text",
  "delete the old offer ... and send me new one", "am anulat abonamentul la revista...".
* complaining stops flagged (unsubscribe and a complaint on the offline triage): 28/30
  (the two missed were not heard as stops at all); complaints without a stop flagged as
  complaints: 5/7 (measured, not part of what this batch asserts).

First committed (0011bd8) with "i not want message on whatsapp, send email please" among
the look-alikes (166/190, 9/50). It is a stop by the rule already in force (opt-outs are
per channel: "not on WhatsApp, email me" opts out of WhatsApp), so it was moved to the
stops and measured again on the same, unchanged code: the figures above.

The vocabulary and the reading were then changed on this batch (by class: see
`outreach/optout_vocabulary.py` and `outreach/optout_reading.py`), so its figures afterwards,
191/191 in every writing, 0/49 and 30/30, are no longer a measurement.

Decisions made explicit (the guide of `triage_cases.py` and `optout_fresh.py` holds):

* "Nu." / "Nu, mulțumesc." / "No thanks" alone decline; they are not a stop.
* A legal disclaimer or a GDPR notice in a signature ("dacă ați primit acest mesaj din
  greșeală, vă rugăm să-l ștergeți", "aveți dreptul să solicitați ștergerea datelor") is
  boilerplate, not a request: a reply that only carries one is not a stop.
* A question or a complaint without a request to stop ("De unde aveți adresa mea?") is a
  complaint, not an opt-out; with one ("... Ștergeți-o!") it is both (`complaint=True`).
* A stop on one channel is an opt-out of that channel ("not on WhatsApp, send email");
  a format preference ("nu vreau mesaje vocale, scrieți-mi text") is not a stop.
* A stop written anywhere in the text counts: above or below a quote, inside a forward of
  a colleague's or the owner's words, in a P.S.
"""

from __future__ import annotations

from tests.hitl.triage_cases import Case

P, N, X = "positive", "neutral", "negative"


def _stop(text: str, language: str = "ro") -> Case:
    return Case(text, "unsubscribe", X, language)


def _gripe_stop(text: str, language: str = "ro") -> Case:
    """An opt-out that is also a complaint a person must see (URGENT)."""
    return Case(text, "unsubscribe", X, language, complaint=True)


def _alike(text: str, intent: str, band: str = N, language: str = "ro") -> Case:
    """Looks like an opt-out, is not one."""
    return Case(text, intent, band, language, optout=False)


def _gripe(text: str, language: str = "ro") -> Case:
    """A complaint or a pointed question without a request to stop: not an opt-out."""
    return Case(text, "complaint", X, language, optout=False, complaint=True)


# --- building blocks of emails and chat replies ------------------------------------------

OUR_WHATSAPP = (
    "Bună ziua! Sunt Andrei de la Cerniq. Lucrăm cu ferme din Iași și am observat că "
    "firma dumneavoastră activează în zonă. Ați fi deschis o discuție scurtă despre "
    "inputuri la preț de fermier?"
)
OUR_EMAIL = (
    "Bună ziua, domnule Popescu,\n\n"
    "Cerniq lucrează cu exploatații agricole din Dolj. Vă propunem o colaborare pentru "
    "aprovizionarea cu inputuri: semințe, îngrășăminte și produse de protecția plantelor.\n\n"
    "Cu stimă,\nEchipa Cerniq"
)
WROTE_RO = "În lun., 3 mar. 2025 la 10:12, Echipa Cerniq <office@cerniq.ro> a scris:"
WROTE_EN = "On Mon, 3 Mar 2025 at 10:12, Cerniq Team <office@cerniq.ro> wrote:"
SIGNATURE = (
    "--\nIng. Gheorghe Popescu\nAdministrator\nSC Agro Delta Câmpia SRL\n"
    "Tel: 0744 123 456 | Fax: 0251 412 300\nStr. Gării nr. 12, Băilești, jud. Dolj"
)
DISCLAIMER_RO = (
    "Acest mesaj și eventualele atașamente sunt confidențiale și sunt destinate exclusiv "
    "destinatarului. Dacă l-ați primit din greșeală, vă rugăm să ne anunțați imediat și să "
    "îl ștergeți. Orice utilizare neautorizată este interzisă."
)
DISCLAIMER_EN = (
    "CONFIDENTIALITY NOTICE: This e-mail and any attachments are confidential and intended "
    "solely for the addressee. If you are not the intended recipient, please notify the "
    "sender immediately and delete this message. Do not copy or forward it."
)
GDPR_NOTICE = (
    "Datele dumneavoastră cu caracter personal sunt prelucrate conform Regulamentului (UE) "
    "2016/679 (GDPR). Aveți dreptul de acces, de rectificare, de a solicita ștergerea "
    "datelor și de a vă opune prelucrării, scriind la dpo@agrodelta.ro."
)
PHONE_FOOTER = "Trimis de pe telefonul meu Samsung Galaxy"
FORWARDED = (
    "---------- Forwarded message ---------\nFrom: Ion Marin <ion.marin@fermamarin.ro>\n"
    "Date: joi, 6 mar. 2025 la 08:40\nSubject: Re: Propunere pentru Ferma Marin\n"
    "To: Secretariat <secretariat@fermamarin.ro>"
)


def quoted(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in text.splitlines())


FILLER_RO = (
    "Vă scriu în numele fermei, unde lucrăm aproximativ 650 de hectare cu grâu, porumb și "
    "floarea-soarelui. Anul acesta am avut o primăvară secetoasă, iar la grâu producția a "
    "ieșit sub așteptări, în jur de 4,2 tone la hectar. Îngrășămintele le luăm de la "
    "același distribuitor de zece ani, cu plata la recoltă, și suntem mulțumiți de el."
)
FILLER_EN = (
    "We farm about 650 hectares of wheat, maize and sunflower near Calarasi. This year the "
    "spring was dry and the wheat yield came in below expectations. We buy our fertiliser "
    "from the same distributor we have used for ten years, paid at harvest, and we are "
    "happy with that arrangement."
)

LONG: tuple[Case, ...] = (
    _stop(
        f"Bună ziua,\n\n{FILLER_RO}\n\nDin acest motiv nu avem nevoie de un alt furnizor și "
        "vă rog să nu mai trimiteți mesaje pe această adresă. Am primit deja trei.\n\n"
        f"Cu stimă,\n{SIGNATURE}"
    ),
    _stop(
        f"Stimate domn,\n\n{FILLER_RO}\n\nNu dorim alte oferte. Vă rugăm să ne scoateți din "
        "baza dumneavoastră de date de contact. Mulțumim pentru înțelegere.\n\n"
        f"O zi bună,\n{SIGNATURE}\n\n{DISCLAIMER_RO}"
    ),
    _stop(
        f"Bună ziua,\n\n{FILLER_RO} Prețurile voastre poate sunt bune, nu contest.\n\n"
        "Vă mulțumesc pentru ofertă și vă doresc spor.\n\nP.S. Vă rog să nu mă mai "
        "contactați pe WhatsApp, folosesc numărul doar pentru familie."
    ),
    _stop(
        f"Hello,\n\n{FILLER_EN}\n\nFor that reason we will not be changing suppliers, and I "
        "would ask you to take this address off your mailing list.\n\nKind regards,\n"
        f"{SIGNATURE}\n\n{DISCLAIMER_EN}",
        "en",
    ),
    _stop(
        f"Dear Sir or Madam,\n\n{FILLER_EN}\n\nPS: please do not email me again.\n\n"
        f"{DISCLAIMER_EN}",
        "en",
    ),
    _stop(
        f"Bună ziua,\n\nVă mulțumesc pentru mesaj. {FILLER_RO}\n\nAș aprecia dacă nu m-ați "
        "mai contacta pe viitor. Dacă vom avea nevoie, vă vom căuta noi.\n\n"
        f"{SIGNATURE}\n{PHONE_FOOTER}"
    ),
    _stop(
        f"Domnule Andrei,\n\n{FILLER_RO}\n\nPe scurt: nu ne interesează și nu mai vrem să "
        "primim emailuri de la Cerniq. Vă rog să notați acest lucru.\n\n"
        f"{SIGNATURE}\n\n{GDPR_NOTICE}"
    ),
    _stop(
        f"Bună ziua,\n\n{FILLER_RO}\n\nPS. Ștergeți-mi adresa din lista de email, vă rog.\n"
        "PPS. Nu e nimic personal."
    ),
    _stop(f"Salut,\n\n{FILLER_RO}\n\nNu mai trimiteți, vă rog. Nu e cazul.\n\n{PHONE_FOOTER}"),
    _stop(
        f"Bună ziua,\n\n{FILLER_RO}\n\nAm înțeles ce oferiți, însă vă rog frumos să încetați "
        "trimiterea acestor mesaje către adresa mea, atât pe email cât și pe telefon.\n\n"
        f"{SIGNATURE}"
    ),
    _stop(
        f"Good morning,\n\n{FILLER_EN}\n\nAlso, kindly stop sending these messages to my "
        "personal phone; it is not a business line.\n\nThanks,\nGheorghe",
        "en",
    ),
    _stop(
        f"Bună ziua,\n\n{FILLER_RO}\n\n{FILLER_RO}\n\nÎn concluzie: vă rog să nu ne mai "
        "scrieți. Am zis tot ce era de zis.\n\n" + SIGNATURE
    ),
    _stop(
        f"Bună ziua,\n\n{FILLER_RO}\n\nNu mai am nevoie de mesajele dumneavoastră; vă rog "
        f"să mă eliminați din lista de distribuție.\n\n{SIGNATURE}\n\n{DISCLAIMER_RO}\n\n"
        f"{DISCLAIMER_EN}"
    ),
)

QUOTED: tuple[Case, ...] = (
    _stop(f"Nu mai scrieți, vă rog.\n\n{WROTE_RO}\n{quoted(OUR_EMAIL)}"),
    _stop(f"Vă rog să mă scoateți de pe listă.\n\n{WROTE_RO}\n{quoted(OUR_EMAIL)}"),
    _stop(f"Please remove me.\n\n{WROTE_EN}\n{quoted(OUR_EMAIL)}", "en"),
    _stop(f"Unsubscribe\n\n{WROTE_EN}\n{quoted(OUR_EMAIL)}", "en"),
    _stop(f"{WROTE_RO}\n{quoted(OUR_EMAIL)}\n\nNu mai doresc astfel de emailuri."),
    _stop(f"{quoted(OUR_WHATSAPP)}\n\nnu multumesc nu mai scrieti"),
    _stop(f"> {OUR_WHATSAPP}\nNu sunt interesat. Vă rog să nu mai reveniți cu mesaje."),
    _stop(
        f"Bună ziua,\n\n{WROTE_RO}\n> Bună ziua, domnule Popescu,\n>\n"
        "> Cerniq lucrează cu exploatații agricole din Dolj.\n\nNu ne interesează. "
        "Scoateți-ne din baza de date.\n\n> Vă propunem o colaborare.\n"
    ),
    _stop(f"STOP\n\n-----Original Message-----\nFrom: Cerniq\n\n{OUR_EMAIL}", "en"),
    _stop(f"Dezabonați-mă.\n\n{SIGNATURE}\n\n{WROTE_RO}\n{quoted(OUR_EMAIL)}"),
    _stop(f"Răspuns la: „{OUR_WHATSAPP}”\n\nNu mai trimiteți mesaje la numărul acesta."),
    _stop(f"{OUR_WHATSAPP}\n\n^^^ asta e a patra oară. Opriți-vă cu mesajele."),
)

FORWARDS: tuple[Case, ...] = (
    _stop(
        f"Vă redirecționez mai jos răspunsul patronului.\n\n{FORWARDED}\n\nSpune-le să nu "
        "ne mai scrie, nu lucrăm cu ei.\n\nIon"
    ),
    _stop(
        f"Fwd de la șeful meu:\n\n{FORWARDED}\n\nNu vrem oferte de la firma asta. Să nu "
        "mai trimită nimic."
    ),
    _stop(f"Please see below.\n\n{FORWARDED}\n\nTell them to remove us from their list.", "en"),
    _stop(
        "Conducerea a decis să nu mai primim oferte de la furnizori noi. Vă rog să nu mai "
        f"trimiteți.\n\n{FORWARDED}\n\n{quoted(OUR_EMAIL)}"
    ),
)

FORMAL: tuple[Case, ...] = (
    _stop("Vă solicităm încetarea oricărei comunicări comerciale către societatea noastră."),
    _stop("Prin prezenta vă notificăm să nu mai transmiteți mesaje către acest număr."),
    _stop("Prin prezenta, solicit retragerea consimțământului pentru comunicări comerciale."),
    _stop("Vă rog să luați act că nu mai doresc să fiu contactat."),
    _stop("Vă rugăm să luați act de refuzul nostru de a mai primi oferte."),
    _stop("Subsemnatul Ionescu Vasile solicit radierea datelor mele din evidențele dvs."),
    _stop("Solicităm ștergerea datelor de contact ale societății din baza dumneavoastră."),
    _stop("Vă aducem la cunoștință că nu acceptăm comunicări nesolicitate. Încetați."),
    _stop("În temeiul art. 17 din GDPR, solicit ștergerea datelor mele personale."),
    _stop("Vă solicit să sistați transmiterea de mesaje comerciale pe acest număr."),
    _stop("Ne opunem prelucrării datelor noastre în scop de marketing direct."),
    _stop("Solicit încetarea prelucrării numărului meu de telefon în scop comercial."),
    _stop("Vă rugăm să procedați la eliminarea adresei noastre din lista de corespondență."),
    _stop("Vă informăm că nu dorim să mai fim contactați în scop comercial de societatea dvs."),
    _stop("Cu respect, vă rog să dispuneți încetarea trimiterii de mesaje către mine."),
    _stop("Solicit exercitarea dreptului de opoziție: nu mai prelucrați datele mele."),
    _stop("Vă comunicăm refuzul expres de a primi comunicări comerciale."),
    _stop("Solicit dezabonarea de la orice comunicare comercială a societății Cerniq."),
    _stop("Please be advised that we do not consent to further marketing contact.", "en"),
    _stop("We hereby request that you cease all communication with our company.", "en"),
    _stop("I hereby withdraw my consent to receive marketing messages.", "en"),
    _stop("Kindly refrain from contacting us in the future.", "en"),
)

DIALECT: tuple[Case, ...] = (
    _stop("nu mai scrieti la mine"),
    _stop("lasati-ma"),
    _stop("lasatima in pace domnule"),
    _stop("nu ma mai bateti la cap cu mesajele voastre"),
    _stop("Nu mai trimeteti la mine mesage ca nu am nevoe"),
    _stop("no ma mai scrieti ca nu cumpar nimica"),
    _stop("mai lasatine cu ofertele voastre"),
    _stop("domnu nu mai dati mesaje ca nu stiu sa le citesc si nici nu vreau"),
    _stop("Nu mai imi trimeteti mesaje va rog frumos ca sunt batran"),
    _stop("nu mai scriiti va rog"),
    _stop("nu mi mai trimiteti nimic pe telefon"),
    _stop("Lasă-mă în pace cu mesajele tale, omule."),
    _stop("nu mai mi scrieti ca ma enervati"),
    _stop("nu ma mai sacaiti cu mesaje"),
    _stop("Terminați cu mesajele, că n-am nevoie de nimic."),
    _stop("Încetați odată cu mesajele astea, mă!"),
    _stop("Ajunge cu mesajele, am zis că nu."),
    _stop("Gata cu ofertele, nu mai scrieți."),
    _stop("nu mai trimitetzi mesaje"),
    _stop("shtergetzi numarul meu va rog"),
    _stop("va rog nu ma mai contactatzi"),
    _stop("stergeti-ma din lista va rog frumos sa traiti"),
)

DICTATION: tuple[Case, ...] = (
    _stop("bună ziua vă rog să nu mai trimiteți mesaje pe numărul acesta mulțumesc"),
    _stop("vă rog să mă scoateți din listă virgulă nu sunt interesat punct"),
    _stop("nu mai scrieți vă rog că sunt la volan și nu mă interesează"),
    _stop("nu vreau să mai primesc mesaje de la dumneavoastră mulțumesc frumos o zi bună"),
    _stop("nu mai trimiteți mesaje semnul exclamării"),
    _stop("vă rog să nu mă mai contactați punct mulțumesc"),
    _stop("doamna vă rog frumos stergeti-mă din listă că nu mai lucrez în agricultură"),
    _stop("please stop messaging me I'm driving", "en"),
    _stop("remove me from the list full stop", "en"),
    _stop("nu ne mai trimiteți mesaje la ferma Popescu că avem furnizor"),
)

CAPS: tuple[Case, ...] = (
    _stop("NU MAI SCRIEȚI!!! 😡😡😡"),
    _stop("STOP!!! 🛑🛑"),
    _stop("🚫 NU MAI TRIMITEȚI MESAJE 🚫"),
    _stop("ȘTERGEȚI-MĂ DIN LISTĂ 👎"),
    _stop("STOP MESAJE!!!"),
    _stop("LĂSAȚI-MĂ ÎN PACE 🙏"),
    _stop("UNSUBSCRIBE!!! 😤", "en"),
    _stop("DON'T TEXT ME AGAIN 🤬", "en"),
    _stop("nu mai scrieti 🙄🙄"),
    _stop("🛑"),
)

MIXED: tuple[Case, ...] = (
    _stop("please nu mai trimiteti"),
    _stop("stop cu mesajele"),
    _stop("unsubscribe-uiti-ma va rog"),
    _stop("Vă rog dați-mi unsubscribe de la lista voastră."),
    _stop("Sorry, dar nu mai vreau mesaje. Remove me please."),
    _stop("Stop spam-ul, please."),
    _stop("Pls nu mai scrieti pe nr asta"),
    _stop("Delete-uiti-mi numarul, thanks."),
    _stop("Vreau opt-out de la mesajele voastre."),
    _stop("Fac opt out, nu mai scrieți."),
    _stop("Nu mai trimiteți newsletter-ul, please."),
    _stop("Scoateți-mă din mailing list, mersi."),
)

NON_NATIVE: tuple[Case, ...] = (
    _stop("please not send me more", "en"),
    _stop("i not want message", "en"),
    _stop("delete me of your base", "en"),
    _stop("Please no more message to me.", "en"),
    _stop("I am not want receive your offers, stop please.", "en"),
    _stop("you not write me again please", "en"),
    _stop("Please erase my number from you list.", "en"),
    _stop("No more sending to this number, thank you.", "en"),
    _stop("i dont want more your messages", "en"),
    _stop("Please to remove my contact from database.", "en"),
    _stop("We are not wish more emails from your company.", "en"),
    _stop("Stop to write me.", "en"),
    _stop("i not want message on whatsapp, send email please", "en"),
)

SHORT: tuple[Case, ...] = (
    _stop("Nu mulțumesc, nu mai scrieți."),
    _stop("STOP!!!"),
    _stop("Stop."),
    _stop("Dezabonare."),
    _stop("Ștergeți-mă."),
    _stop("Nu mai."),
    _stop("Remove.", "en"),
    _stop("Unsub", "en"),
    _stop("Nu. Nu mai scrieți."),
    _stop("Scoateți-mă."),
    _stop("Nu mai trimiteți."),
)

COMPANY: tuple[Case, ...] = (
    _stop("Firma noastră nu dorește să mai fie contactată."),
    _stop("Please remove our company from your mailing list.", "en"),
    _stop("Societatea noastră nu mai dorește să primească oferte de la dumneavoastră."),
    _stop("SC Agro Delta SRL vă solicită să nu mai transmiteți mesaje către angajații săi."),
    _stop("Ferma Popescu nu dorește colaborare și nici alte mesaje."),
    _stop("Cooperativa nu mai acceptă oferte nesolicitate. Vă rugăm să ne scoateți."),
    _stop("Our company does not wish to receive further offers from you.", "en"),
    _stop("Conducerea firmei a decis să nu mai fim contactați de furnizori. Mulțumim."),
    _stop("Vă rugăm să eliminați toate adresele firmei noastre din lista dvs."),
    _stop("Nu dorim să mai fim incluși în campaniile voastre."),
)

CONSENT: tuple[Case, ...] = (
    _stop("Îmi retrag consimțământul pentru prelucrarea datelor."),
    _stop("Nu mi-am dat acordul și nu mi-l dau. Nu mai scrieți."),
    _stop("Retrag acordul pentru mesaje comerciale."),
    _stop("Nu sunt de acord să mai primesc mesaje."),
    _stop("Nu vă dau acordul să-mi trimiteți mesaje."),
    _stop("I withdraw my consent.", "en"),
    _stop("I do not consent to being contacted.", "en"),
    _stop("Revoc orice acord dat anterior pentru a fi contactat."),
)

UNSUBSCRIBE_WORDS: tuple[Case, ...] = (
    _stop("dezabonează-mă"),
    _stop("Dezabonați-mă, vă rog."),
    _stop("vreau dezabonare"),
    _stop("Doresc să mă dezabonez."),
    _stop("Cum mă dezabonez de la mesajele astea?"),
    _stop("Mă dezabonez."),
    _stop("dezabonati-ne"),
    _stop("opt-out"),
    _stop("opt out pls", "en"),
    _stop("optout", "en"),
    _stop("Unsubscribe me.", "en"),
    _stop("How do I unsubscribe from these?", "en"),
    _stop("unsubscribed pls", "en"),
    _stop("Vreau să mă dezabonați de la tot."),
)

COMPLAINING: tuple[Case, ...] = (
    _gripe_stop("Cine v-a dat numărul? Ștergeți-l imediat!"),
    _gripe_stop("GDPR! Nu mai scrieți!"),
    _gripe_stop("Vă dau în judecată dacă mai primesc ceva."),
    _gripe_stop("De unde aveți numărul meu? Nu mai scrieți aici."),
    _gripe_stop("De unde ați luat adresa mea de email? Ștergeți-o din baza de date."),
    _gripe_stop("Vă reclam la ANSPDCP. Scoateți-mă din listă."),
    _gripe_stop("Dacă mai primesc un singur mesaj, depun plângere la ANSPDCP."),
    _gripe_stop("Mai scrieți o dată și vă dau pe mâna avocatului."),
    _gripe_stop("Încă un mesaj și vă reclam la Protecția Consumatorului."),
    _gripe_stop("Am cerut de trei ori să nu mai primesc mesaje. Ultima dată vă spun."),
    _gripe_stop("V-am mai zis să nu-mi mai scrieți! Nu înțelegeți?"),
    _gripe_stop("Asta e hărțuire. Opriți imediat mesajele."),
    _gripe_stop("Sunteți niște spammeri. Ștergeți-mă."),
    _gripe_stop("Nu v-am dat niciodată acordul. Ștergeți-mi datele."),
    _gripe_stop("Încălcați GDPR-ul. Vă rog să ștergeți toate datele mele."),
    _gripe_stop("Avocatul meu vă va contacta dacă nu încetați cu mesajele."),
    _gripe_stop("Where did you get my number? Delete it now.", "en"),
    _gripe_stop("This is a GDPR violation. Remove my data immediately.", "en"),
    _gripe_stop("If you message me again I will report you to the authorities.", "en"),
    _gripe_stop("I've told you twice. Stop emailing me or I'll call my lawyer.", "en"),
    _gripe_stop("Cine v-a dat voie să-mi scrieți? Nu mai scrieți!"),
    _gripe_stop("Fac plângere penală dacă mai primesc vreun mesaj de la voi."),
    _gripe_stop("E a treia oară când vă rog să mă scoateți de pe listă!"),
    _gripe_stop("Ce mizerie de spam. Nu mai trimiteți nimic pe numărul ăsta."),
    _gripe_stop("Cum ați obținut datele mele? Solicit ștergerea lor în 30 de zile."),
    _gripe_stop(
        f"Bună ziua,\n\n{FILLER_RO}\n\nNu înțeleg de unde aveți adresa mea de email, nu "
        "v-am dat-o niciodată. Vă rog să o ștergeți și să nu mai scrieți.\n\n" + SIGNATURE
    ),
    _gripe_stop(f"Nu mai scrieți, că vă reclam la ANSPDCP.\n\n{WROTE_RO}\n{quoted(OUR_EMAIL)}"),
    _gripe_stop("ATENȚIE: am sunat la ANSPDCP. Dacă mai trimiteți UN mesaj, fac plângere. 😡"),
    _gripe_stop("Va reclam la protectia datelor daca nu ma scoateti din baza."),
    _gripe_stop("Încetați cu spamul ăsta sau anunț poliția."),
)

STOPS: tuple[Case, ...] = (
    LONG
    + QUOTED
    + FORWARDS
    + FORMAL
    + DIALECT
    + DICTATION
    + CAPS
    + MIXED
    + NON_NATIVE
    + SHORT
    + COMPANY
    + CONSENT
    + UNSUBSCRIBE_WORDS
    + COMPLAINING
)

LOOK_ALIKES: tuple[Case, ...] = (
    # declines without a request to stop
    _alike("Nu.", "not_interested", X),
    _alike("Nu, mulțumesc.", "not_interested", X),
    _alike("No thanks.", "not_interested", X, "en"),
    _alike("Nu acum, mai scrieți-ne în toamnă după recoltă.", "not_interested", X),
    _alike("Not now, we are busy with the harvest. Write me in October.", "not_interested", X),
    # boilerplate after a reply that wants to hear from us
    _alike(f"Da, trimiteți oferta.\n\n{SIGNATURE}\n\n{DISCLAIMER_RO}", "interested", P),
    _alike(f"Yes, send the price list.\n\n{SIGNATURE}\n\n{DISCLAIMER_EN}", "interested", P, "en"),
    _alike(f"Sunați-mă luni după 10.\n\n{SIGNATURE}\n\n{GDPR_NOTICE}", "meeting_request", P),
    _alike(f"Da, ne interesează.\n\n{WROTE_RO}\n{quoted(OUR_EMAIL)}", "interested", P),
    _alike(f"{quoted(OUR_WHATSAPP)}\n\nDa, sunați-mă mâine.", "meeting_request", P),
    _alike(
        f"Bună ziua,\n\n{FILLER_RO}\n\nTotuși, dacă aveți prețuri mai bune la uree, trimiteți-"
        f"ne o ofertă pe email.\n\n{SIGNATURE}\n\n{DISCLAIMER_RO}",
        "price_request",
    ),
    # formal Romanian that is not a stop
    _alike(
        "Vă rog să luați act că s-a schimbat administratorul; noul contact e dl Ionescu.",
        "referral",
    ),
    _alike("Prin prezenta vă notificăm schimbarea sediului social. Actualizați datele.", "other"),
    _alike("Vă solicităm oferta de preț pentru 20 t de azotat de amoniu.", "price_request"),
    _alike(
        "Încetarea contractului cu furnizorul actual e în martie; reveniți atunci.",
        "not_interested",
    ),
    _alike(
        "Ne retragem comanda de săptămâna trecută, dar rămânem interesați de semințe.",
        "interested",
        P,
    ),
    # words of a stop in another sense
    _alike("Stopul de la remorcă s-a stricat, aveți piese?", "question"),
    _alike("Lăsați-mă să mă gândesc până luni.", "not_interested"),
    _alike("Nu vă bateți capul, trec eu pe la depozit.", "other"),
    _alike("Nu mai primim marfă până luni, depozitul e plin.", "other"),
    _alike("Nu mai doresc porumb, doresc floarea-soarelui anul ăsta.", "interested", P),
    _alike("Nu mai e nevoie să sunați, am primit oferta, o analizăm.", "other"),
    _alike(
        "Nu mai trimiteți catalogul, îl avem; trimiteți doar lista de prețuri.", "price_request"
    ),
    _alike("Gata, am primit. Mulțumesc!", "other"),
    _alike("Ajunge cu teoria, când veniți la fermă?", "meeting_request", P),
    _alike("Vă rog frumos să nu mai amânați livrarea.", "complaint", X),
    _alike("Blocați-mi vă rog prețul de azi pentru 10 tone.", "interested", P),
    _alike("Opriți-vă la ferma noastră când treceți prin Slobozia.", "meeting_request", P),
    _alike("Ștergeți vă rog atașamentul trimis greșit, v-am retrimis varianta bună.", "other"),
    _alike("Nu mă scoateți de pe listă, doar că acum n-am timp.", "not_interested"),
    _alike("Vreau să mă abonez la newsletter-ul vostru.", "interested", P),
    _alike("Mă retrag din afacere la anul; vorbiți cu fiul meu, 0744 555 111.", "referral"),
    _alike("Mesajele voastre ajung în spam, scrieți-mi de pe altă adresă.", "other"),
    _alike("Nu vreau mesaje vocale, scrieți-mi text.", "other"),
    _alike("Please send me more details, not just the price.", "interested", P, "en"),
    _alike(
        "Delete the old offer from your system and send me new one please.",
        "price_request",
        N,
        "en",
    ),
    _alike("Remove the VAT from the price please, we are exempt.", "question", N, "en"),
    _alike("Don't send samples, send the price list.", "price_request", N, "en"),
    _alike("DA!!! 👍👍 SUNAȚI-MĂ MÂINE", "meeting_request", P),
    _alike("da vă rog trimiteți oferta pe mail punct mulțumesc", "interested", P),
    _alike("please trimiteti oferta pe email", "interested", P),
    _alike("Am anulat abonamentul la revista Ferma, dar ofertele voastre le citesc.", "other"),
    _alike("Nu mai lucrez cu Agricover, așa că vă ascult. Ce preț aveți?", "price_request"),
    # complaints and pointed questions without a request to stop
    _gripe("De unde aveți adresa mea de email? Vreau să știu sursa."),
    _gripe("Cine v-a dat numărul meu? Răspundeți-mi."),
    _gripe("Where did you get my email address?", "en"),
    _gripe("Sunt nemulțumit de cum ați livrat data trecută. Aștept un telefon."),
    _gripe("Am sunat de trei ori la voi și nu răspunde nimeni. Ce fel de firmă sunteți?"),
    _gripe("Asta e a treia ofertă cu prețuri diferite. Nu e serios."),
)
