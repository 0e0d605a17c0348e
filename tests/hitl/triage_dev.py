"""Development replies for the issue #10 triage work (opt-outs, complaints, sarcasm, meeting
times, intent): written for this work, labelled by the guide of `triage_cases.py`, used to
develop the opt-out vocabulary and the rules and to train the shipped intent model together
with the old set. Never derived from `triage_heldout.py`, which is not read.

Labels follow the old guide: an explicit opt-out is "unsubscribe" even inside a complaint
(those also carry `complaint=True`: a person must see them); a deferral is a decline; a
sarcastic "yes" is what it means, not what it says. Tags: "mixed" (Romanian and English in
one reply), "sarcasm", "time" (proposes a concrete day or hour for a call or a visit).

`LOOK_ALIKES` are replies that resemble an opt-out and are not one ("nu mă sunați,
scrieți-mi", "stop by the farm"): the vocabulary must leave them alone.
"""

from __future__ import annotations

from tests.hitl.triage_cases import Case

P, N, X = "positive", "neutral", "negative"
MIXED, SARCASM, TIME = "mixed", "sarcasm", "time"


def _c(text: str, intent: str, band: str, language: str = "ro", **extra) -> Case:
    return Case(text, intent, band, language, **extra)


def _stop(text: str, language: str = "ro", *, complaint: bool = False, tags=()) -> Case:
    return Case(text, "unsubscribe", X, language, complaint=complaint or None, tags=tuple(tags))


def _gripe_stop(text: str, language: str = "ro", tags=()) -> Case:
    """An opt-out that is also a complaint (GDPR, lawyer, "where did you get my number")."""
    return _stop(text, language, complaint=True, tags=tags)


UNSUBSCRIBE: tuple[Case, ...] = (
    # plain requests, every writing
    _stop("Vă rog să nu mai îmi trimiteți mesaje."),
    _stop("Va rog sa nu imi mai trimiteti mesaje"),
    _stop("Nu mai trimiteţi nimic la numărul ăsta, mulţumesc."),
    _stop("nu mai trimite mesaje pe nr asta"),
    _stop("Nu-mi mai scrieți, vă rog frumos."),
    _stop("Nu mai scrieti pe whatsapp, va rog"),
    _stop("Nu mai doresc să fiu contactat de firma dumneavoastră."),
    _stop("Nu mai doresc sa fiu contactata."),
    _stop("Nu mai doresc."),
    _stop("Nu mai doresc astfel de mesaje."),
    _stop("nu mai doresc nimic de la voi"),
    _stop("Nu mai dorim să primim oferte pe WhatsApp."),
    _stop("Nu doresc să primesc mesaje comerciale."),
    _stop("Nu doresc sa fiu contactat in scop comercial."),
    _stop("Nu vreau să fiu contactat. Mulțumesc."),
    _stop("Nu vrem oferte, nu mai trimiteți."),
    _stop("Nu mai vreau să aud de voi."),
    _stop("Nu mai vreau sa primesc nimic de la firma voastra"),
    _stop("As dori sa nu mai primesc aceste mesaje."),
    _stop("Aș vrea să nu mai fiu contactat pe acest număr."),
    _stop("Doresc să nu mai fiu contactat."),
    _stop("Încetați să-mi mai trimiteți mesaje."),
    _stop("Incetati cu mesajele va rog"),
    _stop("Încetați!"),
    _stop("Opriți trimiterea mesajelor către acest număr."),
    _stop("Oprește mesajele, te rog."),
    _stop("Opriţi-vă cu mesajele astea."),
    _stop("Gata cu mesajele, vă rog."),
    _stop("Fără mesaje pe viitor, vă rog."),
    _stop("Ajunge! Nu mai scrieți."),
    _stop("Nu ne mai deranjați."),
    _stop("Nu mă mai deranjați cu oferte."),
    _stop("Nu ma mai bateti la cap cu ofertele voastre"),
    _stop("Nu mai insistați, vă rog, nu sunt interesat."),
    _stop("Vă rog să nu mai insistaţi cu mesajele."),
    _stop("Nu mă mai căutați."),
    _stop("nu ne mai cautati"),
    _stop("Lăsați-mă în pace."),
    _stop("Lasati-ne in pace cu ofertele voastre."),
    _stop("Lăsaţi-mă în pace, vă rog!"),
    _stop("Stop, vă rog."),
    _stop("stop pls"),
    _stop("Stop!!!!"),
    _stop("STOP STOP STOP"),
    _stop("Stop. Mulțumesc."),
    _stop("stop mesajele"),
    _stop("🛑"),
    _stop("Stop spam"),
    _stop("STOP. Nu sunt interesat."),
    _stop("Nu sunt interesat. Stop."),
    _stop("Mulțumesc, nu sunt interesat. Vă rog să nu mă mai contactați."),
    _stop("Nu ma intereseaza, nu mai scrieti."),
    _stop("Nu suntem interesați și nu dorim să mai fim contactați."),
    # unsubscribe words and typos
    _stop("Dezabonare, vă rog."),
    _stop("dezabonati-ma"),
    _stop("Dezabonaţi-mă de la mesaje."),
    _stop("desabonare"),
    _stop("Vreau să mă dezabonez."),
    _stop("Doresc dezabonarea de la aceste mesaje."),
    _stop("Dezinscrieți-mă din lista voastră."),
    _stop("Unsubscribe me", "en"),
    _stop("unsubscibe", "en"),
    _stop("UNSUBSCRIBE", "en"),
    _stop("Unsub", "en"),
    _stop("Please unsubscribe this number.", "en"),
    _stop("Opt-out, thanks.", "en"),
    _stop("I want to opt out of these messages.", "en"),
    # lists, data, erasure
    _stop("Scoateți-mă din lista de contacte."),
    _stop("Scoateti-ma din baza de date."),
    _stop("Scoate-mă de pe lista ta."),
    _stop("Vă rog să-mi scoateți numărul din listă."),
    _stop("Scoateți numărul meu din evidențe."),
    _stop("Ștergeți-mi datele."),
    _stop("Stergeti-mi datele personale din baza voastra de date."),
    _stop("Ştergeţi numărul acesta din baza de date."),
    _stop("Ștergeți acest număr, vă rog."),
    _stop("Vă rog ștergeți tot ce aveți despre mine."),
    _stop("Solicit ștergerea datelor mele."),
    _stop("Solicit stergerea datelor personale conform GDPR.", complaint=True),
    _stop("Eliminați-mă din lista voastră."),
    _stop("Eliminati numarul meu din baza de date"),
    _stop("Să nu mai apar în lista voastră."),
    _stop("Nu vreau să fiu în baza voastră de date."),
    _stop("Nu doresc sa figurez in baza voastra de date."),
    _stop("Retrag consimțământul pentru prelucrarea datelor."),
    _stop("Îmi retrag acordul pentru orice comunicare."),
    _stop("Nu mai folosiți numărul meu."),
    _stop("Nu mai utilizati datele mele"),
    _stop("Please remove my number from your database.", "en"),
    _stop("Remove this number from your list please.", "en"),
    _stop("Take me off your list.", "en"),
    _stop("Take my number off your contact list, thanks.", "en"),
    _stop("Delete my details.", "en"),
    _stop("Please delete my data.", "en"),
    _stop("Erase my personal data from your records.", "en"),
    _stop("I request the deletion of my personal data.", "en"),
    _stop("Please remove us from your mailing list.", "en"),
    _stop("Remove our email from your database.", "en"),
    _stop("Delete this contact.", "en"),
    # English cease-contact
    _stop("I no longer wish to receive these messages.", "en"),
    _stop("We no longer wish to be contacted.", "en"),
    _stop("I don't wish to receive any further messages.", "en"),
    _stop("I do not want to be contacted again.", "en"),
    _stop("Please don't message me anymore.", "en"),
    _stop("Please do not text this number again.", "en"),
    _stop("Stop sending me these.", "en"),
    _stop("Stop contacting us.", "en"),
    _stop("Please stop.", "en"),
    _stop("stop it", "en"),
    _stop("Kindly cease all communication.", "en"),
    _stop("No more messages please.", "en"),
    _stop("No further contact, thank you.", "en"),
    _stop("Leave me alone.", "en"),
    _stop("Don't reach out again.", "en"),
    _stop("Never contact me again.", "en"),
    _stop("Not interested. Don't message me again.", "en"),
    _stop("Not interested, please stop emailing.", "en"),
    _stop("Please stop bothering me.", "en"),
    _stop("Do not contact this number.", "en"),
    _stop("Lose my number.", "en"),
    _stop("I never signed up for this. Stop.", "en", complaint=True),
    # repeated requests
    _gripe_stop("V-am mai spus o dată: nu mai trimiteți mesaje!"),
    _gripe_stop("Pentru a treia oară: scoateți-mă din listă!"),
    _gripe_stop("Câte ori trebuie să vă spun să nu mă mai contactați?"),
    _gripe_stop("Am mai cerut să fiu șters. De ce tot primesc mesaje?"),
    _gripe_stop("V-am rugat deja sa nu-mi mai scrieti."),
    _gripe_stop("I already asked you to remove me. Remove me now.", "en"),
    _gripe_stop("This is the second time I'm asking: stop messaging me.", "en"),
    _gripe_stop("How many times do I have to ask you to stop?", "en"),
    _gripe_stop("I told you last week not to contact me again.", "en"),
    _gripe_stop("Iar? V-am zis să nu mai scrieți."),
    # threats conditioned on another contact
    _gripe_stop("Dacă mă mai contactați, fac reclamație la ANPC."),
    _gripe_stop("Daca mai primesc un mesaj, va reclam la ANSPDCP."),
    _gripe_stop("Dacă îmi mai scrieți, vă dau în judecată."),
    _gripe_stop("Dacă mă mai sunați, chem poliția."),
    _gripe_stop("Încă un mesaj și depun plângere."),
    _gripe_stop("Daca ma mai deranjati o data, merg la avocat."),
    _gripe_stop("Dacă mai primesc ceva de la voi, vă blochez și vă raportez."),
    _gripe_stop("If you contact me again I will report you.", "en"),
    _gripe_stop("If I get one more message I'm calling my lawyer.", "en"),
    _gripe_stop("One more text and I'm filing a complaint.", "en"),
    _gripe_stop("If you message this number again I'll report it to the data authority.", "en"),
    _gripe_stop("Contact me again and you'll hear from my lawyer.", "en"),
    # complaints that ask to stop
    _gripe_stop("De unde aveți numărul meu? Ștergeți-l imediat."),
    _gripe_stop("Cine v-a dat numărul meu? Nu mai scrieți aici."),
    _gripe_stop("Nu v-am dat niciodată acordul. Ștergeți-mi datele conform GDPR."),
    _gripe_stop("Fără acordul meu nu aveți voie să mă contactați. Stop."),
    _gripe_stop("Nu aveți dreptul să-mi folosiți numărul. Ștergeți-l."),
    _gripe_stop("Este spam. Scoateți-mă din listă sau fac plângere la ANSPDCP."),
    _gripe_stop("Mesajele voastre sunt hărțuire. Încetați."),
    _gripe_stop("E ilegal ce faceți, nu mai trimiteți nimic."),
    _gripe_stop("Where did you get my number? Delete it.", "en"),
    _gripe_stop("I never gave you consent. Remove me under GDPR.", "en"),
    _gripe_stop("This is spam. Unsubscribe me or I report you.", "en"),
    _gripe_stop("Stop harassing me.", "en"),
    _gripe_stop("Nu mai trimiteti spam, va raportez la ANPC."),
    _gripe_stop("Vă dau în judecată dacă nu încetați."),
    _gripe_stop("Sunteți niște nesimțiți, lăsați-mă în pace!"),
    # mixed RO/EN
    _stop("Please, nu mai trimiteți mesaje.", tags=(MIXED,)),
    _stop("Stop mesaje, thanks.", tags=(MIXED,)),
    _stop("Unsubscribe, mersi.", "en", tags=(MIXED,)),
    _stop("Remove me din lista voastră.", "en", tags=(MIXED,)),
    _stop("Nu sunt interesat, please remove my number.", tags=(MIXED,)),
    _gripe_stop("Ștergeți datele mele, GDPR please!", tags=(MIXED,)),
    _stop("Don't contact me, mersi.", "en", tags=(MIXED,)),
    _stop("Nu mai vreau mesaje, ok? Stop.", tags=(MIXED,)),
)

COMPLAINT: tuple[Case, ...] = (
    _gripe_stop("De unde aveți datele mele? Nu v-am dat acordul."),
    _c("Cine v-a dat numărul meu de telefon? Vreau să știu imediat.", "complaint", X),
    _c("Asta e spam curat. Rușine!", "complaint", X),
    _c("E a treia oară când primesc mesajul ăsta.", "complaint", X),
    _c("Mi-ați trimis același mesaj de patru ori azi!", "complaint", X),
    _c("Îmi trimiteți mesaje la 6 dimineața, nu e normal.", "complaint", X),
    _gripe_stop("Vă raportez la ANSPDCP pentru prelucrarea datelor fără consimțământ."),
    _c("Am depus deja plângere la Protecția Consumatorului.", "complaint", X),
    _c("Avocatul meu vă va contacta.", "complaint", X),
    _c("Marfa a venit cu o săptămână întârziere și nimeni nu s-a scuzat.", "complaint", X),
    _c("Motorina livrată săptămâna trecută avea apă în ea!", "complaint", X),
    _c("Semintele de floarea soarelui n-au rasarit deloc, vreau banii inapoi.", "complaint", X),
    _c("Agentul vostru a fost nepoliticos cu mine la telefon.", "complaint", X),
    _c("Am plătit avansul acum o lună și nu s-a livrat nimic.", "complaint", X),
    _c("Factura are alt preț decât oferta. Cine răspunde?", "complaint", X),
    _c("Cantitatea livrată e mai mică decât pe aviz.", "complaint", X),
    _c("Nu mai lucrăm cu voi după cum v-ați purtat la ultima comandă.", "complaint", X),
    _c("Sunteţi nişte escroci.", "complaint", X),
    _c("Ce tupeu să-mi scrieți după ce mi-ați livrat marfă stricată!", "complaint", X),
    _c("Vreau să vorbesc cu un responsabil, e inadmisibil ce s-a întâmplat.", "complaint", X),
    _c("Am sunat de zece ori la voi, nu răspunde nimeni.", "complaint", X),
    _c("Nu mi-a răspuns nimeni la reclamația de luna trecută.", "complaint", X),
    _c("Erbicidul vostru mi-a ars cultura de porumb.", "complaint", X),
    _c("Cooperativa noastră așteaptă de două luni rambursarea.", "complaint", X),
    _c("Utilajul livrat are defect de fabricație, și service-ul nu vine.", "complaint", X),
    _c("Ne-ați taxat transportul deși era inclus.", "complaint", X),
    _c("Who gave you my number? This is a breach of GDPR.", "complaint", X, "en"),
    _c("This is spam and it's the fourth one this week.", "complaint", X, "en"),
    _c("Your delivery was three weeks late and the pallets were broken.", "complaint", X, "en"),
    _c("I'm still waiting for my refund, this is a disgrace.", "complaint", X, "en"),
    _c("You're sending messages at midnight. Very unprofessional.", "complaint", X, "en"),
    _c("I've reported your number to the data protection authority.", "complaint", X, "en"),
    _c(
        "The seed you sold us had terrible germination. We want compensation.", "complaint", X, "en"
    ),
    _c("Your sales rep lied to us about the price.", "complaint", X, "en"),
    _c("Sunt revoltat de modul în care tratați clienții.", "complaint", X),
    _c("Nişte amatori. Comanda a venit incompletă.", "complaint", X),
    _c("Am primit paleții deteriorați și nimeni nu-și asumă.", "complaint", X),
    _c("Mesajele astea sunt abuzive, vă trimit notificare prin avocat.", "complaint", X),
    _c("Nu e prima dată când greșiți factura. Sunt sătul.", "complaint", X),
    _c("Cum adică să plătesc penalități? Nu am întârziat nimic!", "complaint", X),
    _c("Your spam is clogging my inbox, terrible practice.", "complaint", X, "en", tags=()),
    _c(
        "Spam again?? Seriously, e a cincea oară.",
        "complaint",
        X,
        "en",
        tags=(MIXED,),
    ),
)

NOT_INTERESTED: tuple[Case, ...] = (
    _c("Nu, mersi.", "not_interested", X),
    _c("Nu ne trebuie.", "not_interested", X),
    _c("Nu avem nevoie de așa ceva.", "not_interested", X),
    _c("Nu e cazul, mulțumim.", "not_interested", X),
    _c("Nu ma intereseaza oferta.", "not_interested", X),
    _c("Nu suntem interesaţi de colaborare.", "not_interested", X),
    _c("Avem contract pe trei ani cu alt furnizor.", "not_interested", X),
    _c("Lucrăm de 10 ani cu același distribuitor, nu schimbăm.", "not_interested", X),
    _c("Cumpărăm totul prin cooperativă, nu direct.", "not_interested", X),
    _c("Suntem mulțumiți cu ce avem.", "not_interested", X),
    _c("Nu cred că e pentru noi, suntem o fermă mică.", "not_interested", X),
    _c("Ne descurcăm singuri, mulțumesc.", "not_interested", X),
    _c("Prea scump pentru o fermă ca a noastră.", "not_interested", X),
    _c("Nu avem buget anul ăsta.", "not_interested", X),
    _c("Am renunțat la agricultură, am vândut utilajele.", "not_interested", X),
    _c("Nu folosim astfel de servicii.", "not_interested", X),
    _c("Nu, nu și nu.", "not_interested", X),
    _c("nu multumesc", "not_interested", X),
    _c("Nu, mulţumim, suntem aprovizionaţi pentru tot sezonul.", "not_interested", X),
    _c("Nu sunt convins, las-o baltă.", "not_interested", X),
    _c("Refuz politicos, mulțumesc.", "not_interested", X),
    _c("Nu e momentul, poate la primăvară.", "not_interested", N),
    _c("Acum suntem în campanie, reveniți după recoltat.", "not_interested", N),
    _c("Mai vorbim în ianuarie, acum nu am timp.", "not_interested", N),
    _c("Poate anul viitor, acum am cheltuit bugetul.", "not_interested", N),
    _c("Nu acum. Poate după ce vindem recolta.", "not_interested", N),
    _c("Not interested.", "not_interested", X, "en"),
    _c("We're good, thanks.", "not_interested", X, "en"),
    _c("No need, we have everything covered.", "not_interested", X, "en"),
    _c("We buy through our co-op, so no.", "not_interested", X, "en"),
    _c("Not something we need right now.", "not_interested", X, "en"),
    _c("I'll pass on this one.", "not_interested", X, "en"),
    _c("Nope.", "not_interested", X, "en"),
    _c("Doesn't fit our operation, sorry.", "not_interested", X, "en"),
    _c("We're happy with our current dealer.", "not_interested", X, "en"),
    _c("Too pricey for us.", "not_interested", X, "en"),
    _c("Maybe next season, not now.", "not_interested", N, "en"),
    _c("Check back after harvest, we're too busy now.", "not_interested", N, "en"),
    _c("Not interested, mersi.", "not_interested", X, "en", tags=(MIXED,)),
    _c("Nu, thanks, avem deja furnizor.", "not_interested", X, "ro", tags=(MIXED,)),
    # sarcasm that declines
    _c("Da, sigur, exact asta îmi lipsea 🙄", "not_interested", X, tags=(SARCASM,)),
    _c("Wow, încă o ofertă de nerefuzat. Ce noroc pe mine.", "not_interested", X, tags=(SARCASM,)),
    _c(
        "Super, încă un mesaj minunat. Abia așteptam 🙄",
        "not_interested",
        X,
        tags=(SARCASM,),
    ),
    _c(
        "Cum să nu, o să las tot și vă sun imediat 😂",
        "not_interested",
        X,
        tags=(SARCASM,),
    ),
    _c(
        "Bravo, ați descoperit America. Mai încercați.",
        "not_interested",
        X,
        tags=(SARCASM,),
    ),
    _c(
        "Sigur că sunt interesat... ca de o durere de măsea.",
        "not_interested",
        X,
        tags=(SARCASM,),
    ),
    _c(
        "Oh great, another amazing offer. Just what I needed.",
        "not_interested",
        X,
        "en",
        tags=(SARCASM,),
    ),
    _c("Yeah right, I'll get right on that 🙄", "not_interested", X, "en", tags=(SARCASM,)),
    _c("Sure, because I have nothing better to do.", "not_interested", X, "en", tags=(SARCASM,)),
    _c("Wow, so exciting. Not.", "not_interested", X, "en", tags=(SARCASM,)),
    _c("Ce ofertă extraordinară, mai să cad de pe scaun 😂", "not_interested", X, tags=(SARCASM,)),
    _c(
        "Minunat, exact ce voiam: încă un furnizor care mă sună la prânz.",
        "not_interested",
        X,
        tags=(SARCASM,),
    ),
    _c("Da, da, cum să nu. Și porcii zboară.", "not_interested", X, tags=(SARCASM,)),
    _c("Perfect, mai trimiteți vreo zece, poate mă conving 🙄", "complaint", X, tags=(SARCASM,)),
    _c("Felicitări, al cincilea mesaj azi. Record!", "complaint", X, tags=(SARCASM,)),
    _c(
        "Thanks a lot for the daily spam, really appreciated 🙃",
        "complaint",
        X,
        "en",
        tags=(SARCASM,),
    ),
)

INTERESTED: tuple[Case, ...] = (
    _c("Da, mă interesează.", "interested", P),
    _c("Da, ne interesează, trimiteţi detalii.", "interested", P),
    _c("Interesant, spuneți-mi mai multe.", "interested", P),
    _c("Sună bine, aștept detalii pe email.", "interested", P),
    _c("Ok, trimiteți-mi oferta completă pe mail.", "interested", P),
    _c("Da, trimiteti va rog prezentarea pe adresa fermei.", "interested", P),
    _c("Ne-ar interesa pentru campania de toamnă.", "interested", P),
    _c("Suntem o cooperativă de 40 de membri, ne interesează.", "interested", P),
    _c("Da, avem nevoie de un furnizor de semințe certificate.", "interested", P),
    _c("Vreau să aflu mai multe despre serviciile voastre.", "interested", P),
    _c("Aș vrea să văd catalogul.", "interested", P),
    _c("Pot primi un pliant cu produsele?", "interested", P),
    _c("Da, am 120 ha, zona Dolj. Cum procedăm?", "interested", P),
    _c("Da, de ce nu. Spuneți.", "interested", P),
    _c("Sigur, trimiteți informațiile.", "interested", P),
    _c("Merge, vă ascult.", "interested", P),
    _c("Da, suntem deschiși la o colaborare.", "interested", P),
    _c("Ar fi de folos, mai ales pentru irigații.", "interested", P),
    _c("Ne interesează ca dealer, distribuim în 3 județe.", "interested", P),
    _c("Am vrea să testăm produsul pe o suprafață mică.", "interested", P),
    _c("Ma intereseaza, ce pasi urmeaza?", "interested", P),
    _c("da trimite", "interested", P),
    _c("da, interesat", "interested", P),
    _c("Interesat!", "interested", P),
    _c("Da 👍 trimiteți", "interested", P),
    _c("Ok, suntem interesaţi. Aşteptăm materialele.", "interested", P),
    _c("Vă rog să-mi trimiteți fișa tehnică.", "interested", P),
    _c("Da, trimiteți-mi pe WhatsApp detaliile, nu mă sunați că sunt pe câmp.", "interested", P),
    _c("Yes please, send the details.", "interested", P, "en"),
    _c("Sounds good, tell me more.", "interested", P, "en"),
    _c("We might be interested, please send the catalogue.", "interested", P, "en"),
    _c("Interested. We farm 800 ha near Arad.", "interested", P, "en"),
    _c("Sure, email me the info.", "interested", P, "en"),
    _c("Yes, our co-op would like to learn more.", "interested", P, "en"),
    _c("That could be useful for us. What's the next step?", "interested", P, "en"),
    _c("Go ahead and send the brochure.", "interested", P, "en"),
    _c("I'm interested, send me more info please.", "interested", P, "en"),
    _c("We're open to it, send what you have.", "interested", P, "en"),
    _c("Da, send me the details pe mail.", "interested", P, "ro", tags=(MIXED,)),
    _c("Interested, trimiteți oferta.", "interested", P, "ro", tags=(MIXED,)),
    _c("Ok, sounds good, aștept info.", "interested", P, "ro", tags=(MIXED,)),
)

MEETING: tuple[Case, ...] = (
    _c("Sunați-mă mâine la ora 11.", "meeting_request", P, tags=(TIME,)),
    _c("Puteți trece pe la fermă joi după-amiază?", "meeting_request", P, tags=(TIME,)),
    _c("Vorbim vineri la 15:00?", "meeting_request", P, tags=(TIME,)),
    _c("Hai să ne vedem marți, pe 14, la sediul cooperativei.", "meeting_request", P, tags=(TIME,)),
    _c("Sunati-ma luni dupa ora 16.", "meeting_request", P, tags=(TIME,)),
    _c("Mâine la 9 sunt la birou, treceți atunci.", "meeting_request", P, tags=(TIME,)),
    _c("Putem face un apel miercuri la 10:30?", "meeting_request", P, tags=(TIME,)),
    _c("Vă aștept sâmbătă dimineață la fermă.", "meeting_request", P, tags=(TIME,)),
    _c("Diseară după 8 mă puteți suna.", "meeting_request", P, tags=(TIME,)),
    _c("Pe 20 martie sunt liber, vă convine la ora 12?", "meeting_request", P, tags=(TIME,)),
    _c("Joi la ora 14 la depozitul din Urziceni.", "meeting_request", P, tags=(TIME,)),
    _c("Sunaţi-mă mâine dimineaţă, pe la 8.", "meeting_request", P, tags=(TIME,)),
    _c("Call me tomorrow at 10.", "meeting_request", P, "en", tags=(TIME,)),
    _c("How about Wednesday at 2pm?", "meeting_request", P, "en", tags=(TIME,)),
    _c("I'm free Friday morning, 9:30 works.", "meeting_request", P, "en", tags=(TIME,)),
    _c("Let's meet on the 12th at our office.", "meeting_request", P, "en", tags=(TIME,)),
    _c("Monday 11am on Teams?", "meeting_request", P, "en", tags=(TIME,)),
    _c("Come by the farm Thursday afternoon.", "meeting_request", P, "en", tags=(TIME,)),
    _c("Ok, let's talk mâine la 10.", "meeting_request", P, "ro", tags=(MIXED, TIME)),
    _c("Call me joi după 5, please.", "meeting_request", P, "ro", tags=(MIXED, TIME)),
    # without a concrete time
    _c("Sunați-mă, vă rog.", "meeting_request", P),
    _c("Putem vorbi la telefon?", "meeting_request", P),
    _c("Aș vrea să ne întâlnim să discutăm.", "meeting_request", P),
    _c("Când ați putea trece pe la noi?", "meeting_request", P),
    _c("Prefer să vorbim la telefon, e mai simplu.", "meeting_request", P),
    _c("Dați-mi un telefon când puteți.", "meeting_request", P),
    _c("Vreau o întâlnire cu un reprezentant.", "meeting_request", P),
    _c("Veniți să ne prezentați, suntem în Călărași.", "meeting_request", P),
    _c("Sunati-ma pe numarul asta.", "meeting_request", P),
    _c("Ne putem auzi săptămâna viitoare?", "meeting_request", P),
    _c("Give me a call when you can.", "meeting_request", P, "en"),
    _c("Can we set up a call sometime?", "meeting_request", P, "en"),
    _c("I'd rather discuss this over the phone.", "meeting_request", P, "en"),
    _c("Happy to have a chat, when suits you?", "meeting_request", P, "en"),
    _c("Please call me back on this number.", "meeting_request", P, "en"),
)

PRICE: tuple[Case, ...] = (
    _c("Ce prețuri aveți?", "price_request", N),
    _c("Cât costă pe hectar?", "price_request", N),
    _c("Cat ar costa pentru 250 ha?", "price_request", N),
    _c("Care e prețul cu TVA?", "price_request", N),
    _c("Trimiteți-mi o listă de prețuri.", "price_request", N),
    _c("Ce preț faceți la 10 tone de uree?", "price_request", N),
    _c("La cât vine sacul de sămânță?", "price_request", N),
    _c("Aveți reducere pentru cooperative?", "price_request", N),
    _c("Ce discount dați la plata pe loc?", "price_request", N),
    _c("Vreau o ofertă de preț pentru motorină, 5000 litri.", "price_request", N),
    _c("Cât costă abonamentul lunar?", "price_request", N),
    _c("Ce tarif aveți pentru consultanță APIA?", "price_request", N),
    _c("Care e costul transportului până în Ialomița?", "price_request", N),
    _c("Sunt interesat, dar întâi vreau să știu prețul.", "price_request", N),
    _c("Cât ne costă pachetul complet?", "price_request", N),
    _c("Preţul la azotat, vă rog.", "price_request", N),
    _c("cat e", "price_request", N),
    _c("Pret pe tona?", "price_request", N),
    _c("Aveti o cotatie pentru NPK 20-20-0?", "price_request", N),
    _c("What's the price per tonne delivered?", "price_request", N, "en"),
    _c("Send me a quote for 20 tonnes.", "price_request", N, "en"),
    _c("How much for 500 ha?", "price_request", N, "en"),
    _c("Do you have volume discounts?", "price_request", N, "en"),
    _c("What would the annual cost be?", "price_request", N, "en"),
    _c("Price list please.", "price_request", N, "en"),
    _c("Cât costă? Send me the price list.", "price_request", N, "ro", tags=(MIXED,)),
    _c("What's the pret pe hectar?", "price_request", N, "en", tags=(MIXED,)),
)

QUESTION: tuple[Case, ...] = (
    _c("Cine e firma asta?", "question", N),
    _c("Ce vindeți mai exact?", "question", N),
    _c("Cu ce ne puteți ajuta?", "question", N),
    _c("Aveți sediu în județ?", "question", N),
    _c("Livrați și în Tulcea?", "question", N),
    _c("Lucrați cu plata la 60 de zile?", "question", N),
    _c("Semințele sunt certificate?", "question", N),
    _c("Aveți și produse bio?", "question", N),
    _c("Cât durează livrarea?", "question", N),
    _c("Oferiți și consultanță agronomică?", "question", N),
    _c("Cum ați ajuns la mine?", "question", X),
    _c("De unde ați luat numărul ăsta?", "question", X),
    _c("Este vreo legătură cu APIA?", "question", N),
    _c("Lucrați și cu asociații agricole?", "question", N),
    _c("Ce înseamnă exact serviciul vostru?", "question", N),
    _c("Aveti si utilaje second hand?", "question", N),
    _c("Trebuie să semnez ceva?", "question", N),
    _c("Sunteți distribuitor autorizat?", "question", N),
    _c("Who is this?", "question", N, "en"),
    _c("What company are you with?", "question", N, "en"),
    _c("Do you work with small farms?", "question", N, "en"),
    _c("Is delivery included?", "question", N, "en"),
    _c("How does it work exactly?", "question", N, "en"),
    _c("Are your products certified organic?", "question", N, "en"),
    _c("Where did you get my details?", "question", X, "en"),
    _c("Ce e asta, who are you?", "question", N, "ro", tags=(MIXED,)),
)

OUT_OF_OFFICE: tuple[Case, ...] = (
    _c("Sunt în concediu până pe 3 noiembrie.", "out_of_office", N),
    _c("Răspuns automat: lipsesc din birou până luni.", "out_of_office", N),
    _c("Mulţumesc pentru mesaj. Sunt plecat până pe 20.10.", "out_of_office", N),
    _c("Sunt în concediu de odihnă, revin pe 15 octombrie.", "out_of_office", N),
    _c("Revin pe 12.01, până atunci nu am acces la mesaje.", "out_of_office", N),
    _c("Sunt internat în spital, vă răspund când ies.", "out_of_office", N),
    _c("Sunt în delegație toată săptămâna.", "out_of_office", N),
    _c("Biroul este închis până pe 2 ianuarie.", "out_of_office", N),
    _c("Sunt in concediu, revin dupa 10 septembrie.", "out_of_office", N),
    _c("Mesaj automat: în perioada 1-15 august sunt în concediu.", "out_of_office", N),
    _c("Out of office until 15 October.", "out_of_office", N, "en"),
    _c("I'm on holiday, back on 4 November.", "out_of_office", N, "en"),
    _c("Auto-reply: I'm travelling and will be back next week.", "out_of_office", N, "en"),
    _c("I'm away until Monday with no access to email.", "out_of_office", N, "en"),
    _c("On leave until 02/12. For urgent matters call the office.", "out_of_office", N, "en"),
    _c("Thank you for your message. I am out of the office.", "out_of_office", N, "en"),
)

WRONG_PERSON: tuple[Case, ...] = (
    _c("Greșit. Nu am nicio fermă.", "wrong_person", N),
    _c("Cred că ați greșit numărul.", "wrong_person", N),
    _c("Nu sunt persoana pe care o căutați.", "wrong_person", N),
    _c("Eu nu mai lucrez acolo de anul trecut.", "wrong_person", N),
    _c("Nu am nicio legătură cu firma asta.", "wrong_person", N),
    _c("Numărul ăsta e al meu personal de un an, nu al firmei.", "wrong_person", N),
    _c("Firma s-a închis.", "wrong_person", N),
    _c("Nu mă ocup de agricultură, sunt profesor.", "wrong_person", N),
    _c("Ati nimerit gresit.", "wrong_person", N),
    _c("Wrong person, sorry.", "wrong_person", N, "en"),
    _c("I think you have the wrong number.", "wrong_person", N, "en"),
    _c("I'm not a farmer, wrong contact.", "wrong_person", N, "en"),
    _c("This company doesn't exist anymore.", "wrong_person", N, "en"),
    _c("I left that company years ago.", "wrong_person", N, "en"),
)

REFERRAL: tuple[Case, ...] = (
    _c("Vorbiți cu colegul meu, Andrei, 0744 222 333.", "referral", N),
    _c("Scrieți-i inginerului nostru, el decide.", "referral", N),
    _c("De aprovizionare se ocupă tata, vă dau numărul lui.", "referral", N),
    _c("Am dat mesajul mai departe la președintele cooperativei.", "referral", N),
    _c("Contactați biroul la office@agroland.ro.", "referral", N),
    _c("Nu eu, fratele meu are ferma. Sunați-l la 0722 333 444.", "referral", N),
    _c("Pentru achiziții vorbiți cu doamna Ene.", "referral", N),
    _c("Please reach out to our farm manager, Paul.", "referral", N, "en"),
    _c("Talk to my son, he runs things now.", "referral", N, "en"),
    _c("I've passed this on to our buyer.", "referral", N, "en"),
    _c("Email procurement@agri.ro, they handle suppliers.", "referral", N, "en"),
)

OTHER: tuple[Case, ...] = (
    _c("Am primit.", "other", N),
    _c("Ok, mulțumesc.", "other", N),
    _c("Bună ziua!", "other", N),
    _c("Mă gândesc și revin.", "other", N),
    _c("Vorbesc cu asociații și vă spun.", "other", N),
    _c("Am citit.", "other", N),
    _c("Mersi frumos!", "other", N),
    _c("Paște fericit!", "other", N),
    _c("Ok 👍", "other", N),
    _c("Seen, thanks.", "other", N, "en"),
    _c("Got it.", "other", N, "en"),
    _c("I'll get back to you.", "other", N, "en"),
    _c("Let me think about it.", "other", N, "en"),
)

CASES: tuple[Case, ...] = (
    UNSUBSCRIBE
    + COMPLAINT
    + NOT_INTERESTED
    + INTERESTED
    + MEETING
    + PRICE
    + QUESTION
    + OUT_OF_OFFICE
    + WRONG_PERSON
    + REFERRAL
    + OTHER
)

# Replies that look like an opt-out and are not one (also training replies).
LOOK_ALIKE_CASES: tuple[Case, ...] = (
    _c("Nu mă sunați, scrieți-mi pe WhatsApp.", "other", N),
    _c("Nu ma sunati ca sunt pe tractor, scrieti-mi aici.", "other", N),
    _c("Stop by our office on Monday.", "meeting_request", P, "en", tags=(TIME,)),
    _c("Feel free to stop by the farm any time.", "meeting_request", P, "en"),
    _c("We're a one-stop shop for the co-op, send the catalogue.", "interested", P, "en"),
    _c("Livrăm nonstop, aveți nevoie de transport?", "question", N),
    _c("Nu mai am nevoie de îngrășăminte anul ăsta, poate la anul.", "not_interested", N),
    _c("Nu mai lucrez la firma aceea.", "wrong_person", N),
    _c("Nu mai facem porumb, doar grâu.", "other", N),
    _c("Nu mai avem stoc de semințe, când aduceți?", "question", N),
    _c("Nu mai știu ce am comandat, îmi trimiteți factura?", "question", N),
    _c("Am șters din greșeală mesajul, mai trimiteți oferta?", "interested", P),
    _c("Trimiteți-mi din nou oferta, am șters-o.", "interested", P),
    _c("Scoateți factura pe firmă, vă rog.", "other", N),
    _c("Please remove the VAT from the quote.", "price_request", N, "en"),
    _c("Can you delete the old order and send a new quote?", "price_request", N, "en"),
    _c("Don't call me before 10, I'm in the field.", "meeting_request", P, "en", tags=(TIME,)),
    _c("Nu mă sunați dimineața, mai bine după 17.", "meeting_request", P, tags=(TIME,)),
    _c("Nu am primit oferta, o mai trimiteți?", "interested", P),
    _c("Nu vă deranjați cu transportul, venim noi.", "other", N),
    _c("Nu-i problemă, mai scrieți-mi săptămâna viitoare.", "not_interested", N),
    _c("Sunt interesat, nu mai am furnizor de motorină.", "interested", P),
    _c("Stop-ul de la intersecție e lângă depozit, ne găsiți ușor.", "other", N),
    _c("Da, scrieți-mi, nu vă faceți probleme.", "interested", P),
    _c("Nu vreau să pierd oferta, mai e valabilă?", "interested", P),
    _c("Nu doresc livrare, vin eu să ridic marfa.", "other", N),
    _c("Dacă mai aveți stoc, trimiteți-mi prețul.", "price_request", N),
    _c("Dacă mă mai sunați mâine, vorbim detaliat.", "meeting_request", P, tags=(TIME,)),
    _c("If you contact me again next week I'll have the figures.", "other", N, "en"),
    _c("Nu mai expediați comanda până nu plătim.", "other", N),
    _c("Am renunțat la furnizorul vechi, trimiteți oferta.", "interested", P),
    _c("Count me in!", "interested", P, "en"),
    _c("Never again will I buy from the old supplier, send me your offer.", "interested", P, "en"),
    _c("Data viitoare vă sun eu.", "other", N),
    _c("Nu uitați de mine când aveți oferte!", "interested", P),
    _c("Lăsați-mă să mă gândesc.", "other", N),
    _c("Nu mă interesează prețul, ci calitatea. Trimiteți fișa tehnică.", "interested", P),
    _c("Numărul meu nou este 0744 111 222.", "other", N),
    _c("Nu pe 15, ci pe 16 putem vorbi.", "meeting_request", P, tags=(TIME,)),
    _c("Take me out to the field and show me the drone.", "meeting_request", P, "en"),
    _c("Nu e cazul să vă faceți griji, plătim la timp.", "other", N),
    _c("Nu mai e nevoie de transport, ridicăm noi.", "other", N),
    _c("Terminați comanda până vineri?", "question", N),
    _c("Adăugați-mă pe lista de distribuție pentru oferte de toamnă.", "interested", P),
    _c("Nu mai e nevoie să mă sunați, am semnat cu voi.", "other", N),
    _c("Dacă mă mai sunați o dată mâine, vă dau și cifrele.", "meeting_request", P, tags=(TIME,)),
    _c("Puneți-mă pe lista de așteptare pentru drone.", "interested", P),
    _c("Back off a bit on the price and we'll talk.", "price_request", N, "en"),
)
LOOK_ALIKES: tuple[str, ...] = tuple(case.text for case in LOOK_ALIKE_CASES)
CASES += LOOK_ALIKE_CASES

# --- a second batch, written to train the intent model: longer replies, signatures,
# abbreviations, typos, dealers and cooperatives, every intent ---------------------------

MORE_INTERESTED: tuple[Case, ...] = (
    _c(
        "Bună ziua, da, ne-ar interesa. Suntem o cooperativă cu 25 de membri în Ialomița.",
        "interested",
        P,
    ),
    _c(
        "Buna ziua. Da, as fi interesat de ce aveti pentru rapita. Cu stima, Ion Marin",
        "interested",
        P,
    ),
    _c("Da, trimiteți pe adresa office@agromar.ro tot ce aveți.", "interested", P),
    _c("Ma intereseaza partea de consultanta pentru subventii. Astept detalii.", "interested", P),
    _c(
        "Da, suntem interesați. Avem magazin agro în Slobozia și căutăm produse noi.",
        "interested",
        P,
    ),
    _c("Suntem distribuitor zonal, ne-ar interesa să preluăm produsele voastre.", "interested", P),
    _c("Da, pt ferma noastra ar fi util. Trimite-ti detalii pe mail.", "interested", P),
    _c("Sunt interesat de drona de stropit, aveti materiale?", "interested", P),
    _c("Mi-ar plăcea să văd o demonstrație video, aveți ceva pe YouTube?", "interested", P),
    _c("Da. 300 ha grâu, 200 porumb, 100 floarea-soarelui. Ce ne puteți oferi?", "interested", P),
    _c("Bună! Am văzut mesajul, sună promițător. Aștept mai multe informații.", "interested", P),
    _c("Vreau să încerc. Cum mă înscriu?", "interested", P),
    _c("Da, putem încerca pe o solă anul acesta.", "interested", P),
    _c("Interesant ce spuneți. Aș vrea să citesc mai mult despre asta.", "interested", P),
    _c("Ok, sunt deschis. Trimiteți-mi ce aveți și mă uit.", "interested", P),
    _c("Dacă e ceva care ne scade costurile la motorină, sigur ne interesează.", "interested", P),
    _c("Am nevoie de îngrășământ pentru toamnă, ce variante aveți?", "interested", P),
    _c("Suntem în căutarea unui furnizor nou de seminte, trimiteti catalogul.", "interested", P),
    _c("ne intereseaza, trimiteti pe whatsapp", "interested", P),
    _c("DA, TRIMITETI DETALII", "interested", P),
    _c("Salut, da, ma bag. Zi-mi mai multe.", "interested", P),
    _c(
        "Bună ziua, am discutat cu asociatul și suntem interesați. Așteptăm oferta scrisă.",
        "interested",
        P,
    ),
    _c("Yes, we'd like to receive your product sheet.", "interested", P, "en"),
    _c("Interested — we're a 1,200 ha farm in Constanța. Send info.", "interested", P, "en"),
    _c("Sure thing, forward me the details.", "interested", P, "en"),
    _c("Yes. We're looking for a new seed supplier for spring.", "interested", P, "en"),
    _c(
        "We're a distributor in the west of Romania, interested in your range.",
        "interested",
        P,
        "en",
    ),
    _c("This looks useful. Could you send some case studies?", "interested", P, "en"),
    _c("Happy to learn more, please share the presentation.", "interested", P, "en"),
    _c("Da, pls send info, mersi!", "interested", P, "ro", tags=(MIXED,)),
    _c("Yes, ne interesează pentru sezonul următor.", "interested", P, "ro", tags=(MIXED,)),
)

MORE_MEETING: tuple[Case, ...] = (
    _c(
        "Bună ziua, sunați-mă vă rog după ora 18, ziua sunt pe câmp.",
        "meeting_request",
        P,
        tags=(TIME,),
    ),
    _c(
        "Putem să ne întâlnim la târgul Agraria, pe 20 aprilie?", "meeting_request", P, tags=(TIME,)
    ),
    _c(
        "Vă aștept marți la ora 9 la sediul firmei din Fetești.", "meeting_request", P, tags=(TIME,)
    ),
    _c("Hai să vorbim pe zoom joi la 16.", "meeting_request", P, tags=(TIME,)),
    _c("Sunt liber vineri dimineață, treceți pe la depozit.", "meeting_request", P, tags=(TIME,)),
    _c("Dați-mi un telefon mâine între 12 și 14.", "meeting_request", P, tags=(TIME,)),
    _c("Azi după-amiază sunt la birou, puteți suna.", "meeting_request", P, tags=(TIME,)),
    _c("Miercuri, 15:30, la ferma din Perieți. Vă convine?", "meeting_request", P, tags=(TIME,)),
    _c("Vorbim luni, pe la 10, că acum sunt la semănat.", "meeting_request", P, tags=(TIME,)),
    _c(
        "Ne vedem săptămâna viitoare, joi la 11, la cooperativă.",
        "meeting_request",
        P,
        tags=(TIME,),
    ),
    _c("Vă sun eu mâine la prima oră.", "meeting_request", P, tags=(TIME,)),
    _c("Pot vorbi doar seara, după 20. Sunați atunci.", "meeting_request", P, tags=(TIME,)),
    _c("Let's talk Tuesday 10am Romanian time.", "meeting_request", P, "en", tags=(TIME,)),
    _c("Could you call me today after 4pm?", "meeting_request", P, "en", tags=(TIME,)),
    _c("Thursday the 9th works, let's say 2 o'clock.", "meeting_request", P, "en", tags=(TIME,)),
    _c("Drop by our warehouse on Friday at 10:00.", "meeting_request", P, "en", tags=(TIME,)),
    _c("Hai să vorbim, sunați-mă când aveți timp.", "meeting_request", P),
    _c("Cel mai bine e să ne vedem, la telefon nu se înțelege nimic.", "meeting_request", P),
    _c("Trimiteți un agent pe la noi, vrem să vedem produsele pe viu.", "meeting_request", P),
    _c("Putem programa o vizită la fermă?", "meeting_request", P),
    _c("Aveți un reprezentant în zona Brăila? Să treacă pe la noi.", "meeting_request", P),
    _c("Vreau să discut cu cineva la telefon, am câteva întrebări.", "meeting_request", P),
    _c("Mă puteți suna la 0745 333 222?", "meeting_request", P),
    _c("Sună-mă te rog, e mai ușor.", "meeting_request", P),
    _c("Let's jump on a call to discuss.", "meeting_request", P, "en"),
    _c("I'd like to meet one of your reps.", "meeting_request", P, "en"),
    _c("Can someone come out to the farm to show us?", "meeting_request", P, "en"),
    _c("Call me, my number is +40 744 555 111.", "meeting_request", P, "en"),
    _c("Da, hai să vorbim, call me oricând.", "meeting_request", P, "ro", tags=(MIXED,)),
)

MORE_PRICE: tuple[Case, ...] = (
    _c(
        "Bună ziua, cât costă tona de azotat livrată în Călărași? Ne trebuie 40 t.",
        "price_request",
        N,
    ),
    _c("Ce preț aveți la motorină pentru cantități de 10.000 litri pe lună?", "price_request", N),
    _c("Dați-mi un preț bun și mai vorbim.", "price_request", N),
    _c("Cât e hibridul de porumb la sac?", "price_request", N),
    _c("Care sunt tarifele pentru întocmirea dosarului APIA?", "price_request", N),
    _c("Ce costuri are abonamentul pentru o cooperativă?", "price_request", N),
    _c("Trimiteți cotație pentru 5 tone de uree și 3 tone NPK.", "price_request", N),
    _c("Aveti preturi de dealer? Revindem in magazinul nostru.", "price_request", N),
    _c("Ce marjă ne lăsați dacă luăm paleți întregi?", "price_request", N),
    _c("Cât ar veni drona cu tot cu instruire?", "price_request", N),
    _c("Care e cel mai mic preț la care puteți ajunge?", "price_request", N),
    _c("Vreau sa stiu cat costa inainte sa discutam.", "price_request", N),
    _c("Prețul include și transportul?", "price_request", N),
    _c("Ofertă de preț la erbicid pentru 300 ha, vă rog.", "price_request", N),
    _c("cat costa", "price_request", N),
    _c("Pretul?", "price_request", N),
    _c("Interesant, dar cât costă pe an?", "price_request", N),
    _c("What do you charge per hectare?", "price_request", N, "en"),
    _c("Can you quote us for 60 tonnes of AN?", "price_request", N, "en"),
    _c("Is there a discount if we pay upfront?", "price_request", N, "en"),
    _c("Please send your dealer price list.", "price_request", N, "en"),
    _c("How much is shipping to Timiș?", "price_request", N, "en"),
    _c("Send me prices, apoi vedem.", "price_request", N, "ro", tags=(MIXED,)),
)

MORE_QUESTION: tuple[Case, ...] = (
    _c("Bună ziua, ce anume oferiți? Nu am înțeles din mesaj.", "question", N),
    _c("Sunteți firmă românească sau străină?", "question", N),
    _c("Ce garanție au utilajele?", "question", N),
    _c("Semințele sunt tratate?", "question", N),
    _c("Care e termenul de livrare pentru Vaslui?", "question", N),
    _c("Puteți factura pe cooperativă?", "question", N),
    _c("Acceptați plata în rate?", "question", N),
    _c("Aveți referințe de la alți fermieri?", "question", N),
    _c("Cum vă găsesc pe internet?", "question", N),
    _c("Sunteți autorizați ANSVSA?", "question", N),
    _c("Ce fel de consultanță faceți, doar APIA sau și AFIR?", "question", N),
    _c("Aplicația merge și pe telefon?", "question", N),
    _c("Aveți reprezentanță în Moldova?", "question", N),
    _c("E nevoie de contract pe termen lung?", "question", N),
    _c("Ce e Cerniq, o aplicație?", "question", N),
    _c("Cine mi-a dat numele vostru? Adică de unde ne știți?", "question", X),
    _c("Cum ați obținut datele firmei?", "question", X),
    _c("Buna, ce vindeti exact? multumesc", "question", N),
    _c("What's your company's website?", "question", N, "en"),
    _c("Do you also sell crop protection products?", "question", N, "en"),
    _c("Are you registered in Romania?", "question", N, "en"),
    _c("How long have you been in business?", "question", N, "en"),
    _c("Can you invoice in euro?", "question", N, "en"),
    _c("How did you find our farm?", "question", X, "en"),
    _c(
        "Lucrați și cu fermieri din Bulgaria? We have land there too.", "question", N, tags=(MIXED,)
    ),
)

MORE_NOT_INTERESTED: tuple[Case, ...] = (
    _c("Bună ziua, mulțumesc pentru ofertă, dar nu ne interesează momentan.", "not_interested", X),
    _c("Nu avem nevoie, cumpărăm de la aceiași de 15 ani.", "not_interested", X),
    _c("Nu, nu sunt interesat de nimic.", "not_interested", X),
    _c("Nu ne permitem acum, prețurile la grâu sunt la pământ.", "not_interested", X),
    _c("Mulțumesc, dar am semnat deja contractul cu alt furnizor.", "not_interested", X),
    _c("Suntem prea mici pentru așa ceva, lucrăm 20 ha.", "not_interested", X),
    _c("Nu lucrăm cu firme noi.", "not_interested", X),
    _c("Nu cumpăr nimic prin WhatsApp.", "not_interested", X),
    _c("Nu e de noi. O zi bună!", "not_interested", X),
    _c("Nu am nevoie de consultanta, fac singur dosarele.", "not_interested", X),
    _c("Lasă, mersi.", "not_interested", X),
    _c("Nu prea, mulțumesc.", "not_interested", X),
    _c("Momentan nu, dar mulțumesc că v-ați gândit la noi.", "not_interested", X),
    _c("Nu suntem in piata pentru asa ceva", "not_interested", X),
    _c("Am ieșit din agricultură, am dat pământul în arendă.", "not_interested", X),
    _c("Nu mersi, nu folosim drone.", "not_interested", X),
    _c("Reveniți în toamnă, acum nu e momentul.", "not_interested", N),
    _c("Mai vorbim după campanie.", "not_interested", N),
    _c("Poate la anul, când schimbăm utilajele.", "not_interested", N),
    _c("Acum nu, suntem în plină recoltare. Scrieți-mi în noiembrie.", "not_interested", N),
    _c("Thanks, but we're not looking for new suppliers.", "not_interested", X, "en"),
    _c("No thanks, we do everything in-house.", "not_interested", X, "en"),
    _c("We're all set for this season.", "not_interested", X, "en"),
    _c("Not for us, sorry.", "not_interested", X, "en"),
    _c("Appreciate it, but no.", "not_interested", X, "en"),
    _c("Perhaps in the autumn, not now.", "not_interested", N, "en"),
    _c("Not now, maybe after harvest, mersi.", "not_interested", N, "en", tags=(MIXED,)),
    _c("Ce să zic, super ofertă... dar nu, mersi 🙄", "not_interested", X, tags=(SARCASM,)),
    _c("Vai, ce generoși sunteți. Nu, mulțumesc.", "not_interested", X, tags=(SARCASM,)),
    _c(
        "Oh wow, a salesman on WhatsApp, how original. No.",
        "not_interested",
        X,
        "en",
        tags=(SARCASM,),
    ),
)

MORE_COMPLAINT: tuple[Case, ...] = (
    _c("Bună ziua. Am primit ieri marfa și lipsesc 10 saci. Cine răspunde?", "complaint", X),
    _c("Ați livrat uree în loc de azotat. Vreau să se rezolve azi.", "complaint", X),
    _c("De o lună aștept factura corectată.", "complaint", X),
    _c("Tractorul cumpărat de la voi stă în service de trei săptămâni.", "complaint", X),
    _c("Consultantul vostru a greșit dosarul APIA și am pierdut subvenția!", "complaint", X),
    _c("Mi-ați încasat de două ori abonamentul.", "complaint", X),
    _c(
        "Aplicația voastră nu merge de o săptămână și nu răspunde nimeni la suport.", "complaint", X
    ),
    _c("Nu e în regulă să promiteți o dată și să livrați în alta.", "complaint", X),
    _c("Sunt foarte supărat pe cum a decurs livrarea.", "complaint", X),
    _c("Șoferul vostru a distrus drumul de acces la fermă.", "complaint", X),
    _c("Am rămas fără motorină în plină campanie din cauza voastră.", "complaint", X),
    _c("Vreau să vorbesc cu directorul, altfel merg la ANPC.", "complaint", X),
    _c(
        "Cine mi-a dat numărul vostru? Adică voi de unde aveți numărul meu? E abuziv.",
        "complaint",
        X,
    ),
    _c("Mi-ați trimis mesaj la 11 noaptea. Nu se face așa ceva.", "complaint", X),
    _c("Nu e normal să primesc oferte pe numărul personal.", "complaint", X),
    _c("Sunteti o firma de tot rasul.", "complaint", X),
    _c("The product arrived damaged and nobody answers the phone.", "complaint", X, "en"),
    _c("We were charged the wrong VAT rate.", "complaint", X, "en"),
    _c("Your team promised delivery on Monday, it's Friday and nothing.", "complaint", X, "en"),
    _c("Very poor service, we expected better.", "complaint", X, "en"),
    _c("I want to speak to a manager about my last order.", "complaint", X, "en"),
    _c("Messaging me on a Sunday is not okay.", "complaint", X, "en"),
)

MORE_OUT_OF_OFFICE: tuple[Case, ...] = (
    _c(
        "Răspuns automat: Mulțumim pentru mesaj. Suntem în concediu până pe 8 ianuarie.",
        "out_of_office",
        N,
    ),
    _c("Sunt plecat la un târg în Germania, revin pe 25 februarie.", "out_of_office", N),
    _c("Sunt la spital, revin când mă fac bine.", "out_of_office", N),
    _c("Nu sunt în țară până în martie, vorbim atunci.", "out_of_office", N),
    _c("Mesaj automat. Revenim cu un răspuns după 3 mai.", "out_of_office", N),
    _c(
        "În perioada 20-27 iulie sunt în concediu. Pentru urgențe: 0722 111 222.",
        "out_of_office",
        N,
    ),
    _c("Sunt in concediu pana pe 5.11, va raspund dupa.", "out_of_office", N),
    _c("Firma este închisă de sărbători, redeschidem pe 7 ianuarie.", "out_of_office", N),
    _c("Biroul e închis azi, revenim luni.", "out_of_office", N),
    _c("I'm currently out of the office and will return on 18 March.", "out_of_office", N, "en"),
    _c("Automatic reply: on parental leave until September.", "out_of_office", N, "en"),
    _c("Away at a trade fair until Friday, limited email access.", "out_of_office", N, "en"),
    _c("Thanks for your email, I'm on holiday until 2 January.", "out_of_office", N, "en"),
    _c("Out of office until 10/11, then back to normal.", "out_of_office", N, "en"),
)

MORE_WRONG_PERSON: tuple[Case, ...] = (
    _c("Nu mai sunt administratorul firmei, am vândut părțile sociale.", "wrong_person", N),
    _c("Aici e o pensiune, nu o fermă.", "wrong_person", N),
    _c("Nu am nicio firmă agricolă, e o confuzie.", "wrong_person", N),
    _c("Numărul a fost al tatălui meu, care a decedat.", "wrong_person", N),
    _c("Cred că m-ați confundat cu altcineva.", "wrong_person", N),
    _c("Nu eu mă ocup de asta și nici nu știu cine.", "wrong_person", N),
    _c("Firma e în insolvență, nu mai cumpără nimic.", "wrong_person", N),
    _c("Sunt angajat simplu, nu iau decizii.", "wrong_person", N),
    _c("Wrong number, this is a private phone.", "wrong_person", N, "en"),
    _c("I'm not involved in the farm anymore.", "wrong_person", N, "en"),
    _c("You've got the wrong company.", "wrong_person", N, "en"),
    _c("I just work here, I don't handle purchases.", "wrong_person", N, "en"),
)

MORE_REFERRAL: tuple[Case, ...] = (
    _c("Scrieți-i domnului Popa, e președintele cooperativei: 0721 444 555.", "referral", N),
    _c("De comenzi se ocupă fiica mea, Ioana, o găsiți la 0744 987 654.", "referral", N),
    _c("Vorbiți cu agronomul nostru, el știe ce ne trebuie.", "referral", N),
    _c("Am trimis mesajul la contabilă, vă contactează ea.", "referral", N),
    _c("Pentru dealeri trebuie să vorbiți cu directorul comercial, dl. Stan.", "referral", N),
    _c("Luați legătura cu biroul de achiziții: achizitii@cooperativa.ro", "referral", N),
    _c("Nu eu, ci ginerele meu are ferma. Numărul lui: 0755 222 111.", "referral", N),
    _c("Sună-l pe Vasile, el e șeful fermei.", "referral", N),
    _c("Directorul nostru decide, îi transmit eu.", "referral", N),
    _c("Please contact our agronomist, Mihai, at mihai@farm.ro.", "referral", N, "en"),
    _c("My partner deals with suppliers, I'll forward this.", "referral", N, "en"),
    _c("Our procurement team handles this: buy@agrogroup.ro", "referral", N, "en"),
    _c("Speak to Elena in the office, she orders the fertiliser.", "referral", N, "en"),
)

MORE_OTHER: tuple[Case, ...] = (
    _c("Am primit mesajul, mulțumesc.", "other", N),
    _c("Ok, am notat numărul.", "other", N),
    _c("Bine, vedem.", "other", N),
    _c("Revin eu.", "other", N),
    _c("Mă consult cu soția și vă zic.", "other", N),
    _c("Craciun fericit si voua!", "other", N),
    _c("La mulți ani!", "other", N),
    _c("Cine e?", "question", N),
    _c("👍👍", "other", N),
    _c("Salut", "other", N),
    _c("Mulțumesc pentru informații.", "other", N),
    _c("Ok, thanks.", "other", N, "en"),
    _c("Will discuss with my team and revert.", "other", N, "en"),
    _c("Received, thank you.", "other", N, "en"),
    _c("Happy Easter!", "other", N, "en"),
)

CASES += (
    MORE_INTERESTED
    + MORE_MEETING
    + MORE_PRICE
    + MORE_QUESTION
    + MORE_NOT_INTERESTED
    + MORE_COMPLAINT
    + MORE_OUT_OF_OFFICE
    + MORE_WRONG_PERSON
    + MORE_REFERRAL
    + MORE_OTHER
)

# --- a third batch: letters with greetings and signatures, dealers and co-ops, colloquial
# and formal registers ----------------------------------------------------------------

THIRD: tuple[Case, ...] = (
    # interested
    _c(
        "Stimate domn, am primit mesajul dumneavoastră și vă confirm interesul nostru. "
        "Vă rugăm să ne transmiteți documentația. Cu stimă, Ing. Vasile Dumitru",
        "interested",
        P,
    ),
    _c(
        "Buna ziua! Suntem o asociatie de 12 fermieri din zona Tecuci si ne-ar interesa "
        "oferta voastra. Trimiteti va rog mai multe detalii.",
        "interested",
        P,
    ),
    _c(
        "Salut! Da, ne intereseaza. Lucram 600 ha in arenda si vrem sa optimizam costurile.",
        "interested",
        P,
    ),
    _c(
        "Magazinul nostru agro ar fi interesat de gama voastră de îngrășăminte foliare.",
        "interested",
        P,
    ),
    _c("Buna, as vrea sa primesc brosura pe email: gheorghe.agro@yahoo.com", "interested", P),
    _c("Da! De mult căutam așa ceva.", "interested", P),
    _c("Sună foarte bine. Aștept oferta.", "interested", P),
    _c("Da, avem nevoie de sfaturi pentru irigații. Trimiteți informații.", "interested", P),
    _c("Mă interesează partea de monitorizare prin satelit.", "interested", P),
    _c("Da, suntem deschiși. Ce ne propuneți concret?", "interested", P),
    _c("Da, interesați. Cooperativa are 2.000 ha în total.", "interested", P),
    _c("Am vrea sa vedem si noi produsul.", "interested", P),
    _c("De acord, trimiteţi-ne propunerea.", "interested", P),
    _c(
        "Dear Sir, we are interested in your proposal. Kindly send the details. Regards, "
        "Andrei Pop, Agro Vest SRL",
        "interested",
        P,
        "en",
    ),
    _c("Yes we could use something like this. Details please.", "interested", P, "en"),
    _c("Sounds like a good fit for our cooperative, send more.", "interested", P, "en"),
    _c("Yep, interested.", "interested", P, "en"),
    # meeting
    _c(
        "Bună ziua, prefer să discutăm față în față. Vă aștept la fermă în Bărăgan, "
        "miercuri pe la 10.",
        "meeting_request",
        P,
        tags=(TIME,),
    ),
    _c(
        "Stimată doamnă, vă propun o întâlnire luni, 14 aprilie, ora 11, la sediul nostru.",
        "meeting_request",
        P,
        tags=(TIME,),
    ),
    _c(
        "Sunați-mă mâine dimineață între 7 și 8, după plec la câmp.",
        "meeting_request",
        P,
        tags=(TIME,),
    ),
    _c("Joi la 17 e ok pentru un call?", "meeting_request", P, tags=(TIME,)),
    _c("Hai sa ne vedem maine la 12 la depozit.", "meeting_request", P, tags=(TIME,)),
    _c("Putem vorbi azi la 3?", "meeting_request", P, tags=(TIME,)),
    _c(
        "Avem ședința cooperativei pe 5 martie, veniți să prezentați la ora 10.",
        "meeting_request",
        P,
        tags=(TIME,),
    ),
    _c("Pot să vă sun eu sâmbătă la prânz?", "meeting_request", P, tags=(TIME,)),
    _c("Monday at 9 works for a quick call.", "meeting_request", P, "en", tags=(TIME,)),
    _c(
        "Let's meet at the Indagra fair on 30 October at 11am.",
        "meeting_request",
        P,
        "en",
        tags=(TIME,),
    ),
    _c("Vreau să vorbesc cu cineva care se pricepe. Mă sunați?", "meeting_request", P),
    _c("Veniți să ne faceți o prezentare la cooperativă.", "meeting_request", P),
    _c("Aș prefera o discuție la telefon. Când puteți?", "meeting_request", P),
    _c("Puteți să-mi dați un telefon?", "meeting_request", P),
    _c("Hai să stabilim o întâlnire.", "meeting_request", P),
    _c("We'd like a demo, when are you available?", "meeting_request", P, "en"),
    _c("Ring me when you get a moment.", "meeting_request", P, "en"),
    # price
    _c(
        "Stimate domn, vă rog să ne transmiteți o ofertă de preț pentru 25 t de NPK "
        "16-16-16, livrare Galați. Mulțumesc, Maria Ene, contabil",
        "price_request",
        N,
    ),
    _c("Buna ziua, cat costa consultanta pe sezon pentru 150 ha?", "price_request", N),
    _c("Ce preţ are tratamentul la sămânţă?", "price_request", N),
    _c("Cât luați pe oră cu drona?", "price_request", N),
    _c("Aveți prețuri mai bune decât Agricover?", "price_request", N),
    _c("Dacă iau 100 de saci, ce preț îmi faceți?", "price_request", N),
    _c("Ce reducere aveți pentru membrii cooperativei?", "price_request", N),
    _c("Cat e transportul pana in Dolj?", "price_request", N),
    _c("Imi trimiteti lista de preturi pentru revanzatori?", "price_request", N),
    _c("Interesat, dar depinde de cost. Cât e?", "price_request", N),
    _c("What's the cost of the annual plan?", "price_request", N, "en"),
    _c("Could you send pricing for distributors?", "price_request", N, "en"),
    _c("How much per litre for diesel, 20k litres?", "price_request", N, "en"),
    # question
    _c("Bună ziua, puteți să-mi spuneți mai exact ce faceți? Nu e clar din mesaj.", "question", N),
    _c("Lucrați cu subvenție sau fără?", "question", N),
    _c("E obligatoriu să am cont pe platformă?", "question", N),
    _c("Aveți și service pentru utilaje?", "question", N),
    _c("Din ce țară sunt semințele?", "question", N),
    _c("Funcționează și pentru legumicultori?", "question", N),
    _c("Trebuie să am firmă sau merge și ca PFA?", "question", N),
    _c("Sunteți aceiași care au fost anul trecut la târg?", "question", N),
    _c("Cine v-a recomandat ferma noastră?", "question", N),
    _c("De unde știți de mine?", "question", X),
    _c("Is this an automated message?", "question", N, "en"),
    _c("Do you have a Romanian office?", "question", N, "en"),
    _c("What crops does this work for?", "question", N, "en"),
    # not interested
    _c(
        "Stimate domn, vă mulțumim pentru ofertă. Din păcate, în acest moment nu avem "
        "nevoie de serviciile dumneavoastră. Cu stimă, conducerea",
        "not_interested",
        X,
    ),
    _c("Nu ne intereseaza, avem agronom angajat.", "not_interested", X),
    _c("N-am nevoie, mersi frumos.", "not_interested", X),
    _c("Nu, suntem ok cu ce avem.", "not_interested", X),
    _c("Nu pot acum, am alte cheltuieli.", "not_interested", X),
    _c("Nu, nu cred că ne ajută.", "not_interested", X),
    _c("Nu este cazul.", "not_interested", X),
    _c("Nu mai cumpărăm îngrășăminte, trecem pe bio.", "not_interested", X),
    _c("Cooperativa a decis să nu colaboreze cu furnizori noi anul acesta.", "not_interested", X),
    _c("Poate mai încolo, acum suntem ocupați cu recoltatul.", "not_interested", N),
    _c("Reveniți la anul pe vremea asta.", "not_interested", N),
    _c("Dear team, thank you, but we will not be pursuing this.", "not_interested", X, "en"),
    _c("No interest, thank you.", "not_interested", X, "en"),
    _c("Nah, we're good.", "not_interested", X, "en"),
    _c("Not at this time. Try again in spring.", "not_interested", N, "en"),
    _c("Da, sigur, o să cumpăr imediat… 🙃", "not_interested", X, tags=(SARCASM,)),
    _c(
        "Grozav, exact ce îmi trebuia în plină campanie, încă un vânzător.",
        "not_interested",
        X,
        tags=(SARCASM,),
    ),
    _c(
        "Sure, I'll drop everything for your amazing offer. Not.",
        "not_interested",
        X,
        "en",
        tags=(SARCASM,),
    ),
    # complaint
    _c(
        "Bună ziua, vă scriu pentru că sunt nemulțumit de ultima livrare: sacii au fost "
        "umezi și produsul s-a întărit. Aștept o soluție.",
        "complaint",
        X,
    ),
    _c("Am plătit pentru consultanță și nimeni nu a venit la fermă.", "complaint", X),
    _c("Sunt dezamăgită de atitudinea agentului vostru.", "complaint", X),
    _c("Nu e prima oară când întârziați. Suntem foarte nemulțumiți.", "complaint", X),
    _c("Mi-ați trimis factura de două ori și acum am penalități.", "complaint", X),
    _c("Reclamație: produsul nu a avut niciun efect.", "complaint", X),
    _c("Este inadmisibil să-mi scrieți pe numărul personal.", "complaint", X),
    _c("Ce înseamnă mesajele astea la ora 5 dimineața?!", "complaint", X),
    _c("We have a serious issue with the last batch you delivered.", "complaint", X, "en"),
    _c("Your invoice doesn't match the agreed price. Fix it.", "complaint", X, "en"),
    _c("This is harassment, I get your messages every day.", "complaint", X, "en"),
    # out of office
    _c(
        "Bună ziua, sunt în concediu de odihnă până la data de 18.08. Pentru probleme "
        "urgente contactați colegul Ion la 0744 000 111.",
        "out_of_office",
        N,
    ),
    _c("Sunt plecat cu treburi, revin în birou pe 3 iunie.", "out_of_office", N),
    _c("Mesaj automat: suntem închiși pentru inventar până joi.", "out_of_office", N),
    _c("Concediu medical până pe 30 aprilie.", "out_of_office", N),
    _c("I am on annual leave, returning 14 August.", "out_of_office", N, "en"),
    _c("Auto-reply: away until 5 May. Urgent: office@agrofarm.ro", "out_of_office", N, "en"),
    # wrong person
    _c("Nu am firmă, sunt pensionar.", "wrong_person", N),
    _c("Ați greșit, aici e un service auto.", "wrong_person", N),
    _c("Acest număr nu aparține firmei Agro Câmpia.", "wrong_person", N),
    _c("Eu nu lucrez în agricultură, cred că e o greșeală.", "wrong_person", N),
    _c("Sorry, you've reached the wrong person.", "wrong_person", N, "en"),
    _c("That farm was sold two years ago.", "wrong_person", N, "en"),
    # referral
    _c(
        "Bună ziua, vă rog să-l contactați pe colegul meu, Radu Ionescu, responsabil "
        "achiziții, la radu@agrosud.ro.",
        "referral",
        N,
    ),
    _c("Vorbiți cu dl. Marinescu de la cooperativă, el cumpără pentru toți.", "referral", N),
    _c("Soțul meu se ocupă, vă dau numărul lui: 0766 111 999.", "referral", N),
    _c("Întrebați-l pe inginerul Dobre, el are ferma mare din sat.", "referral", N),
    _c("I've copied our operations manager, she'll reply.", "referral", N, "en"),
    _c("Please write to my son, Alex, he manages the land now.", "referral", N, "en"),
    # other
    _c("Am înțeles, mulțumesc.", "other", N),
    _c("O să mă uit.", "other", N),
    _c("Ok, vă țin minte.", "other", N),
    _c("Mulţumesc, o zi bună!", "other", N),
    _c("Noted.", "other", N, "en"),
    _c("I'll consider it.", "other", N, "en"),
)

CASES += THIRD

# More ways of asking to stop, met while probing the vocabulary.
MORE_STOPS: tuple[Case, ...] = tuple(
    _stop(text)
    for text in (
        "Vă rog să nu mai luați legătura cu mine.",
        "Nu mai vreau să fiu abordat.",
        "Renunț la mesajele voastre.",
        "Vă rog nu insistați.",
        "N-are rost să-mi mai scrieți.",
        "Degeaba îmi mai scrieți.",
        "Vreau să ies din baza de date.",
        "Anulați-mi înscrierea.",
        "Am blocat numărul.",
        "Raportat ca spam.",
        "Nu vă mai adresați acestui număr.",
        "Vă rog nu mai reveniți.",
        "Anulați abonarea.",
        "Vă rugăm să ne scoateți din baza dumneavoastră de date.",
        "Nu sunt de acord să primesc mesaje comerciale.",
        "Nu accept oferte pe WhatsApp.",
        "Mă opun prelucrării datelor mele.",
        "Pentru ultima dată, nu mai scrieți!",
        "Ieșiți din telefonul meu!",
        "Nu mai vreau să am de-a face cu voi.",
    )
) + tuple(
    _stop(text, "en")
    for text in (
        "Not interested, please do not follow up.",
        "No need to contact me again.",
        "Please don't reach out.",
        "I'd prefer not to be contacted.",
        "Quit messaging me.",
        "I want my data deleted.",
        "Please erase all information you hold about me.",
        "Don't send anything else to this number.",
        "This number should not be contacted.",
        "I do not consent to being contacted.",
        "Please refrain from contacting me.",
        "I'd appreciate it if you stopped contacting me.",
        "Remove.",
        "No more, please.",
    )
)
CASES += MORE_STOPS

# Still more, by grammatical form: other verbs of reaching someone, nouns of marketing,
# prohibitions, "not interested in receiving", warnings about next time.
MORE_STOPS_2: tuple[Case, ...] = (
    tuple(
        _stop(text)
        for text in (
            "Nu mai expediați oferte la adresa asta.",
            "Nu mai transmiteţi mesaje pe acest număr.",
            "Nu mă mai includeți în campaniile voastre.",
            "Nu mă mai băgați în listele voastre.",
            "Nu mă mai plictisiți cu ofertele.",
            "Nu ne mai enervați.",
            "Nu-mi mai umpleți telefonul cu reclame.",
            "Nu mai faceți spam.",
            "Nu-mi mai faceți oferte.",
            "Nu mai vreau să fiu în legătură cu firma voastră.",
            "Nu mai am chef de mesajele voastre.",
            "Nu vreau newsletter.",
            "Nu doresc informări comerciale.",
            "Nu sunt interesat să primesc mesaje de la voi.",
            "Nu suntem interesați de mesajele voastre pe WhatsApp.",
            "Renunțați, vă rog.",
            "Nu vă mai pierdeți timpul cu mine.",
            "Uitați de mine.",
            "Fără alte contactări, vă rog.",
            "Lăsați-mă cu ofertele voastre.",
            "Vă rog să nu-mi mai dați mesaje.",
            "Nu-mi mai dați telefoane.",
        )
    )
    + tuple(
        _gripe_stop(text)
        for text in (
            "Vă interzic să mă mai contactați.",
            "Nu vă permit să-mi folosiți numărul.",
            "Să nu vă mai aud.",
            "Să nu se mai repete.",
            "Data viitoare fac plângere.",
        )
    )
    + tuple(
        _stop(text, "en")
        for text in (
            "Do not call.",
            "I'd rather not receive these messages.",
            "I prefer not to be contacted.",
            "That's enough.",
            "Please respect my privacy.",
            "Don't waste your time on me.",
            "Blocked.",
            "Never again.",
            "Count me out.",
        )
    )
    + tuple(
        _gripe_stop(text, "en")
        for text in (
            "I'm reporting this number.",
            "You're not allowed to contact me.",
            "You have no right to message me.",
            "Next time I'll report you.",
            "Keep it up and I'll report you to the authorities.",
        )
    )
    + (_stop("No more mesaje pls.", "en", tags=(MIXED,)),)
)
CASES += MORE_STOPS_2

MORE_STOPS_3: tuple[Case, ...] = tuple(
    _stop(text)
    for text in (
        "Acest număr nu acceptă mesaje comerciale.",
        "Numărul meu nu e pentru publicitate.",
        "Lăsați-mă dracu' în pace!",
        "Du-te dracu cu ofertele tale.",
        "Nu mă interesează mesajele voastre.",
        "Fără WhatsApp, vă rog.",
        # a WhatsApp opt-out (the reply came on WhatsApp); email stays open
        "Scrieți-mi în continuare pe email, nu pe WhatsApp.",
        "Nu mai sunt interesat să primesc oferte.",
        "Doresc să mă retrag din lista voastră.",
        "Retrageți-mă din campanie.",
        "Dezactivați-mi notificările.",
        "nu mai trimiteti msj",
    )
) + tuple(
    _stop(text, "en")
    for text in (
        "This number is not for marketing.",
        "I am not interested in your messages.",
        "Not interested in being contacted.",
        "Could you please not contact me.",
        "I would appreciate not being contacted.",
        "Take me out.",
        "No contact please.",
    )
)
CASES += MORE_STOPS_3

MORE_STOPS_4: tuple[Case, ...] = (
    _stop("Nu mai primiți acordul meu pentru mesaje."),
    _stop("Mesajele voastre nu sunt dorite."),
    _stop("Vă rog frumos, fără alte oferte pe numărul ăsta."),
    _stop("Ajunge cu atâtea mesaje pe zi!"),
    _stop("Nu mai scrieți pe numărul ăsta, e al soției."),
    _stop("Plz no more msgs", "en"),
    _stop("No more WhatsApp messages from you.", "en"),
    _stop("Kindly refrain from further contact.", "en"),
    _stop("I would like my number removed.", "en"),
    _stop("Please no further marketing to this number.", "en"),
)
CASES += MORE_STOPS_4

# Third person (a co-op, a manager), "no need to", "do-not-contact list", annoyance, typos.
MORE_STOPS_5: tuple[Case, ...] = (
    _stop("nu mai trimete mesaje ca nu am nevoie"),
    _stop("Cooperativa nu dorește să fie contactată."),
    _stop("Domnul Ionescu nu mai dorește să fie contactat."),
    _stop("Firma noastră nu acceptă oferte prin WhatsApp."),
    _stop("Nu mă adăugați în grupuri și liste."),
    _stop("Vă rog să nu-mi mai ocupați telefonul."),
    _stop("Nu mai e cazul să mă contactați."),
    _stop("Nu e nevoie să mai scrieți."),
    _stop("Terminați cu mesajele!"),
    _stop("Mă deranjează mesajele voastre.", complaint=True),
    _stop("He doesn't want to be contacted.", "en"),
    _stop("Please don't add me to your lists.", "en"),
    _stop("Please put me on your do-not-contact list.", "en"),
    _stop("Your messages are really annoying.", "en", complaint=True),
)
CASES += MORE_STOPS_5

# Threats without a named authority, erasure as a right, colloquial brush-offs.
MORE_STOPS_6: tuple[Case, ...] = (
    _gripe_stop("If you text me one more time, you'll regret it.", "en"),
    _gripe_stop("Dacă mă mai contactați o dată..."),
    _gripe_stop("Dacă îmi mai scrieți, o să vedeți voi."),
    _stop("Exercit dreptul la ștergere.", complaint=True),
    _stop("Nu mă mai puneți pe liste."),
    _stop("Cut it out.", "en"),
    _stop("Knock it off with the texts.", "en"),
    _stop("Back off.", "en"),
    _stop("Leave us be.", "en"),
    _stop("Get off my phone.", "en"),
    _stop("Mai lăsați-ne!"),
    _stop("Dați-ne pace!"),
    _stop("Cărați-vă!"),
    _stop("Nu mai doream să fim contactați."),
)
CASES += MORE_STOPS_6

# More irony, in the other ways it is written (laughter, ellipses, quotes).
MORE_SARCASM: tuple[Case, ...] = (
    _c("Haha, sigur, o să vă sun mâine. Sau nu.", "not_interested", X, tags=(SARCASM,)),
    _c("Da... sigur... abia aștept.", "not_interested", X, tags=(SARCASM,)),
    _c("Ce „ofertă” minunată, mersi.", "not_interested", X, tags=(SARCASM,)),
    _c("Vai, ce surpriză, încă un mesaj de la voi!", "complaint", X, tags=(SARCASM,)),
    _c("lol, sure, sign me up for more spam", "complaint", X, "en", tags=(SARCASM,)),
    _c("Of course... because I asked for this.", "not_interested", X, "en", tags=(SARCASM,)),
    _c("Hahaha, bună glumă. Nu.", "not_interested", X, tags=(SARCASM,)),
    _c('Great... another "amazing" deal.', "not_interested", X, "en", tags=(SARCASM,)),
)
CASES += MORE_SARCASM
