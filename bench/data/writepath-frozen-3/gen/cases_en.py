"""English blind cases (b3). Written by hand; no corpus or code was consulted."""
from common import A, ANY, Q, M, Book


def build():
    b = Book("en")
    add = b.add

    # ------------------------------------------------------------------ new_fact (16)
    add("new_fact", "allergy", [M("2026-02-11 09:14",
        "doc wants to put me on amoxicilin for this sinus thing but im alergic to penicilin?? is amox in the same family or am i good")],
        active=[A("penicil")],
        queries=[Q("do i have any drug allergies?", A("penicil"))])
    add("new_fact", "job", [M("2026-03-03 07:52",
        "ugh 3rd 12hr shift in a row. ER nurse life lol. anyway whats a good compression sock brand that doesnt look like grandma socks")],
        active=[A("nurse")],
        queries=[Q("what do i do for a living?", A("nurse"))])
    add("new_fact", "climb", [M("2026-06-14 22:30",
        "been bouldering like 3x a week since spring and my forearms are DESTROYED 😭 any stretches")],
        active=[A("boulder")],
        queries=[Q("what sport am i into?", A("boulder"))])
    add("new_fact", "hearing", [M("2026-04-02 15:05",
        "fyi im deaf in my left ear so if i ever say i'd rather text than call, thats why")],
        active=[A("deaf")],
        queries=[Q("do i have any hearing problems?", A("deaf"))])
    add("new_fact", "mushroom", [M("2026-01-19 18:40",
        "can u stop putting mushrooms in every recipe lol i genuinely hate them, the texture makes me gag")],
        active=[A("mushroom")],
        queries=[Q("what foods do i hate?", A("mushroom"))])
    add("new_fact", "car", [M("2026-05-08 12:11",
        "my car's a 2014 subaru outback w/ like 180k miles. mechanic quoted 4k for the transmission, worth it or nah?")],
        active=[ANY("Outback", "Subaru")],
        queries=[Q("what car do i drive?", ANY("Outback", "Subaru"))])
    add("new_fact", "studio", [M("2026-11-17 03:12",
        "i rent a tiny studio in astoria and the radiator clanks ALL night. how do i bleed it myself")],
        active=[A("Astoria")],
        queries=[Q("where do i live?", A("Astoria"))])
    add("new_fact", "cello", [M("2026-07-21 20:02",
        "picked up cello this year at 41 lol. realistic to join a community orchestra in a couple yrs or am i dreaming")],
        active=[A("cello")],
        queries=[Q("what instrument do i play?", A("cello"))])
    add("new_fact", "nights", [M("2026-08-05 14:26",
        "i work nights, 11p to 7a, so a 9am meeting is basically my 2am lol. how do i push back politely")],
        active=[A("night")],
        queries=[Q("what hours do i work?", ANY("night", "11"))])
    add("new_fact", "bday", [M("2026-06-30 23:48",
        "birthday's aug 9 btw. turning 30 and kinda freaking out ngl")],
        active=[A("aug", "9")],
        queries=[Q("when is my birthday?", A("aug"))])
    add("new_fact", "leafs", [M("2026-04-28 02:15",
        "as a lifelong leafs fan i am once again in pain. anyway unrelated, how do i fix a squeaky door hinge")],
        active=[A("Leafs")],
        queries=[Q("what hockey team do i root for?", A("Leafs"))])
    add("new_fact", "lactose", [M("2026-09-09 08:03",
        "swap the milk for oat in that pancake recipe pls, im lactose intolerant")],
        active=[A("lactose")],
        queries=[Q("do i have any food intolerances?", A("lactose"))])
    add("new_fact", "twins", [M("2026-10-06 17:55",
        "single dad of 4yo twins here, i need dinners that take 15 min max. go")],
        active=[A("twins")],
        queries=[Q("do i have kids?", A("twins"))])
    add("new_fact", "degree", [M("2026-02-26 21:37",
        "i have a masters in civil engineering but somehow ended up in medical device sales haha. should i go back?")],
        active=[A("civil engineering")],
        queries=[Q("what did i study in grad school?", A("civil engineering"))])
    add("new_fact", "colorblind", [M("2026-03-31 10:20",
        "when u describe the chart pls dont just say 'the red line', im red-green colorblind")],
        active=[ANY("colorblind", "color blind", "colourblind")],
        queries=[Q("do i have any vision issues?", ANY("colorblind", "color blind", "colourblind"))])
    add("new_fact", "apnea", [M("2026-11-02 06:45",
        "got my cpap machine for sleep apnea last night and idk how anyone sleeps with this thing strapped to their face")],
        active=[A("apnea")],
        queries=[Q("what health conditions do i have?", A("apnea"))])

    # ------------------------------------------------------------------ change (18)
    add("change", "loc", [
        M("2026-02-03 18:22", "chicago winters are brutal, been here 6 yrs and still not used to it. what coat brand is actually warm thats not canada goose money"),
        M("2026-07-19 21:05", "first full week in the new apartment in sacramento ✅ the heat is no joke. what plants survive 105°F lol")],
        slot="location",
        active=[A("Sacramento")], superseded=[A("Chicago")],
        queries=[Q("what city do i live in now?", A("Sacramento"))])
    add("change", "loc", [
        M("2026-01-15 19:40", "still living w my parents in tucson till i pay off my car 😩"),
        M("2026-06-02 16:18", "got the keys to my own place in phoenix today!!! what do i buy first for an empty apartment")],
        slot="location",
        active=[A("Phoenix")], superseded=[A("Tucson")],
        queries=[Q("where do i live?", A("Phoenix"))])
    add("change", "job", [
        M("2026-03-04 13:10", "im a barista rn while i study for the bar, can u quiz me on con law"),
        M("2026-11-12 19:33", "sworn in today!! officially an attorney lol. goodbye latte art")],
        slot="job",
        active=[A("attorney")], superseded=[A("barista")],
        queries=[Q("what's my job now?", A("attorney"))])
    add("change", "job", [
        M("2026-01-20 16:02", "i teach 8th grade science and my kids are feral after winter break"),
        M("2026-09-30 12:44", "3 months into instructional design now and honestly i dont miss grading AT ALL")],
        slot="job",
        active=[A("instructional design")], superseded=[ANY("teach", "science")],
        queries=[Q("what do i do for work these days?", A("instructional design"))])
    add("change", "emp", [
        M("2026-02-09 10:30", "i do backend at stripe, mostly payments infra. how do i prep for a staff promo packet"),
        M("2026-05-04 17:21", "first standup at plaid this morning, ppl seem nice. stripe already feels like forever ago")],
        slot="employer",
        active=[A("Plaid")], superseded=[A("Stripe")],
        queries=[Q("where do i work?", A("Plaid"))])
    add("change", "partner", [
        M("2026-03-12 20:15", "my gf jess and i are doing a pasta class saturday, what wine do i bring"),
        M("2026-08-08 22:47", "jess and i split in may. seeing someone new now, priya, we met at the climbing gym 🙂")],
        slot="partner",
        active=[A("Priya")], superseded=[A("Jess")],
        queries=[Q("who am i dating?", A("Priya"))])
    add("change", "family", [
        M("2026-02-14 09:05", "mom of 2 boys here, the laundry never ends. tips for getting them to fold their own stuff?"),
        M("2026-07-23 04:12", "well. mom of 3 now 😅 our daughter june arrived tuesday, 7lb 2oz")],
        slot="family",
        active=[ANY("June", "daughter"), ANY("3", "three")], superseded=[A("boys", any=["2", "two"])],
        queries=[Q("how many kids do i have?", ANY("3", "three"))])
    add("change", "pet", [
        M("2026-01-28 03:20", "my cat biscuit keeps knocking glasses off the counter at 3am, how do i stop this"),
        M("2026-10-03 11:36", "we lost biscuit in august 💔 house felt too empty so we adopted a greyhound named pepper")],
        slot="pet",
        active=[A("Pepper")], superseded=[A("Biscuit")],
        queries=[Q("what pet do i have now?", A("Pepper"))])
    add("change", "diet", [
        M("2026-02-02 12:00", "vegetarian for 6 yrs, need high protein lunches that aren't just tofu"),
        M("2026-06-18 19:25", "ok confession i eat fish now. iron kept tanking. pescatarian i guess lol")],
        slot="diet",
        active=[A("pescatarian")], superseded=[A("vegetarian")],
        queries=[Q("what's my diet?", A("pescatarian"))])
    add("change", "diet", [
        M("2026-01-06 08:30", "doing strict keto this year, no bread no rice no joy"),
        M("2026-04-27 18:52", "ok keto is dead to me. eating normal again, just trying to keep sugar low")],
        slot="diet",
        active=[A("sugar")], superseded=[A("keto")],
        queries=[Q("what am i doing with my diet now?", A("sugar"))])
    add("change", "budget", [
        M("2026-03-21 15:45", "shopping for a used car, 12k max budget. civic or corolla?"),
        M("2026-04-02 20:10", "update: my dad's chipping in so i can go up to 18k now")],
        slot="budget",
        active=[A("18")], superseded=[A("12")],
        queries=[Q("what's my budget for the car?", A("18"))])
    add("change", "rent", [
        M("2026-02-25 21:30", "my rent is $1,450 for a 1br which is insane"),
        M("2026-09-01 09:15", "landlord jacked it up, paying 1,600 now 🙃 is that even legal in oregon")],
        slot="amount",
        active=[ANY("1,600", "1600")], superseded=[ANY("1,450", "1450")],
        queries=[Q("how much is my rent?", ANY("1,600", "1600"))])
    add("change", "gym", [
        M("2026-01-09 05:40", "i hit the gym at 6am before work most days, whats a good pre workout snack"),
        M("2026-05-14 21:02", "switched my workouts to after work, 6am was destroying me")],
        slot="schedule",
        active=[ANY("after work", "evening")], superseded=[A("6am")],
        queries=[Q("when do i work out?", ANY("after work", "evening"))])
    add("change", "phone", [
        M("2026-02-17 13:33", "on a pixel 6, how do i turn off the at a glance thing"),
        M("2026-09-22 18:08", "caved and got an iphone 16. how do i move whatsapp chats over from android??")],
        slot="device",
        active=[A("iPhone")], superseded=[A("Pixel")],
        queries=[Q("what phone do i have?", A("iPhone"))])
    add("change", "ankle", [
        M("2026-01-31 19:19", "broke my ankle snowboarding, on crutches for 6 wks. what can i even do for cardio lol"),
        M("2026-03-26 16:40", "boot is off and my PT cleared me to run again!!")],
        slot="health",
        active=[A("cleared")], superseded=[A("crutches")],
        queries=[Q("how is my ankle doing?", A("cleared"))])
    add("change", "school", [
        M("2026-02-12 23:05", "junior at ohio state, marketing major, need internship tips"),
        M("2026-09-08 20:30", "transfer went through, first week of classes at cincinnati done. the co-op program is so much better")],
        slot="school",
        active=[A("Cincinnati")], superseded=[A("Ohio State")],
        queries=[Q("what school do i go to?", A("Cincinnati"))])
    add("change", "lang", [
        M("2026-01-03 22:14", "learning italian on duolingo for my trip, 40 day streak 🔥"),
        M("2026-06-11 23:50", "dropped italian. switched to japanese, anime brain won lol")],
        slot="language",
        active=[A("Japanese")], superseded=[A("Italian")],
        queries=[Q("what language am i learning?", A("Japanese"))])
    add("change", "honeymoon", [
        M("2026-02-20 19:00", "we're thinking bali for the honeymoon in september"),
        M("2026-04-15 21:12", "bali's off, flights were insane. doing portugal instead, lisbon + porto")],
        slot="plan",
        active=[A("Portugal")], superseded=[A("Bali")],
        queries=[Q("where are we going for our honeymoon?", ANY("Portugal", "Lisbon"))])

    # ------------------------------------------------------------------ correction (12)
    add("correction", "wedding", [
        M("2026-07-02 20:14", "my sister's wedding is oct 17 and i still dont have a dress 😭"),
        M("2026-07-02 20:15", "wait no its the 24th lol")],
        active=[A("24")], superseded=[A("17")],
        queries=[Q("when is my sister's wedding?", A("24"))])
    add("correction", "aunt", [
        M("2026-04-08 11:02", "my mom was just diagnosed with type 2 diabetes, what should she cut out"),
        M("2026-04-08 11:03", "ugh sorry, my aunt. not my mom, mom's fine")],
        active=[A("aunt", "diabetes")], superseded=[A("mom", "diabetes")],
        queries=[Q("who in my family has diabetes?", A("aunt"))])
    add("correction", "cats", [
        M("2026-05-19 18:30", "we have 3 cats so the apartment search is a nightmare"),
        M("2026-05-19 18:31", "4 actually lol forgot mochi who lives under the bed")],
        active=[ANY("4", "four")], superseded=[ANY("3", "three")],
        queries=[Q("how many cats do i have?", ANY("4", "four"))])
    add("correction", "boss", [
        M("2026-08-12 09:40", "my boss is karen whitfield, need to email her abt pto"),
        M("2026-08-12 09:41", "whitford* ugh autocorrect")],
        active=[A("Whitford")], superseded=[A("Whitfield")],
        queries=[Q("what's my boss's last name?", A("Whitford"))])
    add("correction", "hometown", [
        M("2026-10-01 21:00", "grew up in toledo, moved away at 18 and never looked back"),
        M("2026-10-01 21:02", "no wait dayton. long day")],
        active=[A("Dayton")], superseded=[A("Toledo")],
        queries=[Q("where did i grow up?", A("Dayton"))])
    add("correction", "shrimp", [
        M("2026-06-06 19:10", "im allergic to shellfish so no paella for me"),
        M("2026-06-06 19:12", "well actually just shrimp, crab and lobster are weirdly fine")],
        active=[A("shrimp")], superseded=[A("shellfish")],
        queries=[Q("what am i allergic to?", A("shrimp"))])
    add("correction", "oneonone", [
        M("2026-03-16 08:20", "my 1:1 with my manager is tuesdays at 10"),
        M("2026-03-16 08:21", "thursdays* sorry")],
        active=[A("Thursday")], superseded=[A("Tuesday")],
        queries=[Q("when is my 1:1 with my manager?", A("Thursday"))])
    add("correction", "kinder", [
        M("2026-08-27 15:30", "my daughter just started kindergarten at lincoln elementary!!"),
        M("2026-08-27 15:31", "jefferson elementary i mean, lincoln was the one we toured")],
        active=[A("Jefferson")], superseded=[A("Lincoln")],
        queries=[Q("what school does my daughter go to?", A("Jefferson"))])
    add("correction", "pharm", [
        M("2026-05-27 14:00", "im a pharmacist so i know the generic is the same thing"),
        M("2026-05-27 14:01", "well pharmacy tech technically. not licensed yet lol")],
        active=[A("pharmacy tech")], superseded=[A("pharmacist")],
        queries=[Q("what's my job?", A("pharmacy tech"))])
    add("correction", "salary", [
        M("2026-01-27 22:10", "i make 72k, is that low for a ux designer in denver"),
        M("2026-01-27 22:11", "typo, 82k")],
        active=[A("82")], superseded=[A("72")],
        queries=[Q("how much do i make?", A("82"))])
    add("correction", "lab", [
        M("2026-09-14 07:30", "my dog luna is a golden retriever and sheds like crazy, best vacuum?"),
        M("2026-09-14 07:31", "lab* not golden lmao idk why i typed that")],
        active=[A("lab")], superseded=[A("golden")],
        queries=[Q("what breed is luna?", A("lab"))])
    add("correction", "shoe", [
        M("2026-04-19 12:25", "i wear a 10 in running shoes"),
        M("2026-04-19 12:26", "10.5 actually, the 10s pinch")],
        active=[A("10.5")], superseded=[A("10", none=["10.5"])],
        queries=[Q("what's my shoe size?", A("10.5"))])

    # ------------------------------------------------------------------ paraphrase_duplicate (10)
    add("paraphrase_duplicate", "bee", [
        M("2026-05-03 10:00", "im allergic to bee stings, i carry an epipen everywhere"),
        M("2026-06-21 16:45", "keep in mind if a bee gets me i'm literally going to the ER lol")],
        count=[ANY("bee", n=1)])
    add("paraphrase_duplicate", "cilantro", [
        M("2026-03-08 18:00", "i cant do cilantro, tastes like soap to me"),
        M("2026-07-30 19:20", "pls leave the coriander leaves out of the salsa, they're soapy for me")],
        count=[ANY("cilantro", "coriander", n=1)])
    add("paraphrase_duplicate", "paramedic", [
        M("2026-02-18 03:30", "i'm a paramedic"),
        M("2026-04-11 04:10", "lol i ride around in an ambulance for a living, i've seen worse than that")],
        count=[ANY("paramedic", "ambulance", n=1)])
    add("paraphrase_duplicate", "radiohead", [
        M("2026-01-12 23:00", "radiohead is my favorite band, no contest"),
        M("2026-08-19 22:40", "nothing tops thom yorke and co for me, obsessed since ok computer")],
        count=[ANY("Radiohead", "Thom Yorke", n=1)])
    add("paraphrase_duplicate", "asheville", [
        M("2026-03-25 14:00", "we live in a little town outside asheville"),
        M("2026-09-05 15:30", "out here in the mountains near asheville it rains constantly ugh")],
        count=[A("Asheville", n=1)])
    add("paraphrase_duplicate", "pork", [
        M("2026-04-04 12:00", "i don't eat pork"),
        M("2026-10-12 17:15", "no pig products for me pls, keep that in mind for the meal plan")],
        count=[ANY("pork", "pig", n=1)])
    add("paraphrase_duplicate", "bike", [
        M("2026-05-11 08:10", "i bike to work every day"),
        M("2026-11-03 08:25", "cycling is how i get to the office, rain or shine")],
        count=[ANY("bike", "cycl", n=1)])
    add("paraphrase_duplicate", "adhd", [
        M("2026-02-08 20:20", "my daughter ava has adhd"),
        M("2026-06-24 21:05", "ava was diagnosed w adhd when she was 6, it's been a journey")],
        count=[A("ADHD", n=1)])
    add("paraphrase_duplicate", "flying", [
        M("2026-03-14 11:00", "im terrified of flying"),
        M("2026-07-07 13:40", "planes freak me out, i'd honestly rather drive 14 hrs")],
        count=[ANY("fly", "plane", n=1)])
    add("paraphrase_duplicate", "tea", [
        M("2026-01-22 09:00", "i dont drink coffee, only tea"),
        M("2026-05-29 09:30", "tea person through and through, coffee makes me jittery")],
        count=[A("coffee", n=1)])

    # ------------------------------------------------------------------ third_person (12)
    add("third_person", "son", [M("2026-05-15 19:10",
        "my son just turned 8 and wants a 'real' bike, what frame size??")],
        active=[A("son", "8")], absent=[A("8", none=["son"])],
        queries=[Q("how old is my son?", A("8"))])
    add("third_person", "sister", [M("2026-10-28 20:30",
        "my sister went vegan in january and now my mom is panicking about thanksgiving lol")],
        active=[A("sister", "vegan")], absent=[A("vegan", none=["sister"])],
        queries=[Q("who in my family is vegan?", A("sister"))])
    add("third_person", "wife", [M("2026-08-03 21:15",
        "my wife is a high school principal so august is pure chaos in our house")],
        active=[A("principal")], absent=[A("principal", none=["wife"])],
        queries=[Q("what does my wife do?", A("principal"))])
    add("third_person", "dad", [M("2026-03-19 17:45",
        "dad's recovering from a hip replacement and staying w us for a few weeks. what should i get for the bathroom")],
        active=[A("hip")], absent=[A("hip", none=["dad", "father"])],
        queries=[Q("what surgery did my dad have?", A("hip"))])
    add("third_person", "roommate", [M("2026-06-09 13:00",
        "my roommate tomas works nights at the hospital so i have to tiptoe around all day ugh")],
        active=[A("Tomas")], absent=[A("hospital", none=["Tomas", "roommate"])],
        queries=[Q("what does tomas do?", ANY("hospital", "night"))])
    add("third_person", "dana", [M("2026-09-20 22:05",
        "my best friend dana just moved to lisbon, jealous af")],
        active=[A("Dana", "Lisbon")], absent=[A("Lisbon", none=["Dana"])],
        queries=[Q("where does dana live now?", A("Lisbon"))])
    add("third_person", "rufus", [M("2026-02-22 10:30",
        "our dog rufus is 12 and going deaf, poor guy. tips for training an old deaf dog?")],
        active=[A("Rufus")], absent=[A("deaf", none=["Rufus", "dog"])],
        queries=[Q("how old is rufus?", A("12"))])
    add("third_person", "ines", [M("2026-11-09 09:20",
        "my manager ines is on maternity leave till march so i'm covering half her stuff")],
        active=[A("Ines")],
        queries=[Q("when is ines back from leave?", A("March"))])
    add("third_person", "grandma", [M("2026-07-11 16:00",
        "grandma turns 90 soon and she still does the nyt crossword in pen lol")],
        active=[A("grandma", "90")], absent=[A("90", none=["grandma", "grandmother"])],
        queries=[Q("how old is my grandma turning?", A("90"))])
    add("third_person", "celiac", [M("2026-12-01 15:50",
        "my husband has celiac so everything i bake has to be gf, any good flour blends?")],
        active=[A("celiac")], absent=[A("celiac", none=["husband"])],
        queries=[Q("does anyone in my family have a food condition?", A("celiac"))])
    add("third_person", "permit", [M("2026-04-24 18:35",
        "my 15 yo daughter just got her learners permit. pray for me and my car")],
        active=[A("permit")],
        queries=[Q("is my daughter driving yet?", A("permit"))])
    add("third_person", "mango", [M("2026-10-17 08:15",
        "my neighbor's cat mango basically lives at our place now, he shows up every morning for breakfast")],
        active=[A("Mango")],
        queries=[Q("whose cat is mango?", ANY("neighbor", "neighbour"))])

    # ------------------------------------------------------------------ multi_clause (10)
    add("multi_clause", "intro", [M("2026-01-04 20:00",
        "ok some context so i dont have to repeat myself: 34, paralegal in columbus, 2 kids, and gluten free so keep recipes gf pls")],
        active=[A("paralegal"), A("Columbus"), A("gluten")])
    add("multi_clause", "bigweek", [M("2026-03-07 22:10",
        "wild week: started at rivian monday, signed a lease in bloomington, and we adopted a kitten named fig 🐱")],
        active=[A("Rivian"), A("Bloomington"), A("Fig")])
    add("multi_clause", "workout", [M("2026-02-01 11:00",
        "for the workout plan: i have asthma, my left knee is bad (acl surgery 2019), and i can only train tue/thu evenings")],
        active=[A("asthma"), A("knee"), ANY("tue", "thu")])
    add("multi_clause", "travel", [M("2026-05-22 14:30",
        "when u book stuff for me: window seat always, i'm a delta person for the miles, and no red-eyes i turn into a zombie")],
        active=[A("window"), A("Delta"), ANY("red-eye", "red eye", "redeye")])
    add("multi_clause", "family", [M("2026-10-10 19:45",
        "my wife's rosa, our son mateo is 3, and we're expecting #2 in april!!")],
        active=[A("Rosa"), A("Mateo"), A("April")])
    add("multi_clause", "mba", [M("2026-09-02 23:30",
        "doing a part-time mba at kellogg, full time at deloitte, commuting from evanston. i have no life")],
        active=[A("Kellogg"), A("Deloitte"), A("Evanston")])
    add("multi_clause", "langs", [M("2026-06-15 17:05",
        "spanish and portuguese fluent, german is meh, and i just started korean")],
        active=[A("Spanish"), A("Portuguese"), A("Korean")])
    add("multi_clause", "dinner", [M("2026-11-20 18:00",
        "for the dinner party menu: i'm allergic to tree nuts, not big on spicy, and i love anything lemony")],
        active=[A("nut"), A("spicy"), A("lemon")])
    add("multi_clause", "lease", [M("2026-04-13 21:20",
        "we're in a 2br in oakland, rent's 3200, lease is up in august so we're starting to look")],
        active=[A("Oakland"), ANY("3200", "3,200"), A("August")])
    add("multi_clause", "hobbies", [M("2026-08-22 10:10",
        "my hobbies rn: pottery on weekends, trying to learn to surf, and a book club that meets once a month")],
        active=[A("pottery"), A("surf"), A("book club")])

    # ------------------------------------------------------------------ chitchat (12)
    chit = [
        ("ty", ["lol ty"]),
        ("shorter", ["shorter pls, like half"]),
        ("ok", ["ok cool 👍"]),
        ("haha", ["hahahaha ok that one got me"]),
        ("hey", ["hiii", "u there?"]),
        ("worked", ["thx that worked!!"]),
        ("nvm", ["nvm figured it out lol"]),
        ("casual", ["can u redo that but more casual"]),
        ("morning", ["good morning ☀️"]),
        ("what", ["wait what", "oh ok i see"]),
        ("perfect", ["perfect ty ty"]),
        ("lmao", ["lmaooo no way 😂"]),
    ]
    day = 1
    for topic, texts in chit:
        msgs = [M("2026-%02d-%02d 1%d:%02d" % (1 + day % 11, 3 + day, day % 10, 10 + i), t)
                for i, t in enumerate(texts)]
        add("chitchat", topic, msgs, nothing=True)
        day += 1

    # ------------------------------------------------------------------ relative_date (9)
    add("relative_date", "flushot", [M("2026-10-14 08:40",
        "got my flu shot yesterday and my arm is KILLING me, normal?")],
        active=[A("flu")], dates=[A("flu", valid_from="2026-10-13")])
    add("relative_date", "pt", [M("2026-05-20 19:00",
        "started physical therapy for my shoulder last week, the exercises are so boring")],
        active=[A("shoulder")], dates=[A("shoulder", valid_from="2026-05-11")])
    add("relative_date", "engaged", [M("2026-03-10 13:25",
        "i got engaged last friday!!! still can't stop staring at the ring")],
        active=[A("engaged")], dates=[A("engaged", valid_from="2026-03-06")])
    add("relative_date", "bunny", [M("2026-07-02 17:50",
        "3 days ago i adopted a rescue bunny named clover, what do bunnies eat besides carrots")],
        active=[A("Clover")], dates=[A("Clover", valid_from="2026-06-29")])
    add("relative_date", "clinic", [M("2026-08-28 20:15",
        "i start at the new clinic next week, any tips for first day nerves")],
        active=[A("clinic")], dates=[A("clinic", valid_from="2026-08-31")])
    add("relative_date", "surgery", [M("2026-11-30 21:40",
        "gallbladder surgery tomorrow, kinda nervous. what should i pack")],
        active=[A("gallbladder")], dates=[A("gallbladder", valid_from="2026-12-01")])
    add("relative_date", "smoking", [M("2026-09-18 12:30",
        "quit smoking 3 months ago and haven't caved once 💪")],
        active=[A("smok")], dates=[A("smok", valid_from="2026-06-01")])
    add("relative_date", "house", [M("2026-02-10 18:05",
        "we close on the house in march!! finally done renting")],
        active=[A("house")], dates=[A("house", valid_from="2026-03-01")])
    add("relative_date", "promo", [M("2026-04-22 22:00",
        "got promoted to senior designer two weeks ago and still have imposter syndrome lol")],
        active=[A("senior designer")], dates=[A("senior designer", valid_from="2026-04-08")])

    # ------------------------------------------------------------------ plan (6)
    add("plan", "portland", [
        M("2026-01-05 19:00", "we've lived in denver 5 yrs and honestly love it here"),
        M("2026-01-22 20:30", "big news, we're moving to portland in june for my wife's job")],
        active=[A("Denver"), A("Portland")],
        queries=[Q("where do i live right now?", A("Denver"))])
    add("plan", "marathon", [M("2026-03-02 07:15",
        "signing up for the chicago marathon in october, longest i've ever run is a 10k lol. training plan?")],
        active=[A("marathon")],
        queries=[Q("what race am i training for?", A("Chicago"))])
    add("plan", "nursing", [M("2026-07-28 23:10",
        "thinking about quitting my job to go back to school for nursing next fall. am i crazy")],
        active=[A("nursing")],
        queries=[Q("what am i thinking of studying?", A("nursing"))])
    add("plan", "tokyo", [M("2026-01-18 15:00",
        "booked flights to tokyo for april 3-14!! first time in japan, what should i not miss")],
        active=[A("Tokyo")],
        queries=[Q("when is my tokyo trip?", A("Tokyo"))])
    add("plan", "tacotruck", [
        M("2026-05-06 15:20", "im a line cook at a diner, 6 yrs now, my back hates me"),
        M("2026-05-06 15:24", "goal is to open my own taco truck in like 2 yrs, saving every penny")],
        active=[A("taco truck"), A("line cook")],
        queries=[Q("what's my current job?", A("line cook"))])
    add("plan", "baby", [M("2026-09-26 22:30",
        "we're gonna start trying for a baby next year 🙈 what vitamins should i start now")],
        active=[A("baby")], absent=[ANY("is pregnant", "currently pregnant")],
        queries=[Q("are we planning to have kids?", A("baby"))])

    # ------------------------------------------------------------------ reported_speech (3)
    add("reported_speech", "prediabetes", [M("2026-02-16 08:20",
        "doc said my a1c is in the prediabetes range so i gotta cut sugar. help me plan breakfasts?")],
        active=[ANY("prediabet", "pre-diabet")],
        queries=[Q("what did my doctor say about my blood sugar?", ANY("prediabet", "pre-diabet"))])
    add("reported_speech", "adhd", [M("2026-06-03 18:00",
        "my therapist thinks i might have adhd, getting tested soon")],
        active=[A("ADHD")],
        queries=[Q("what does my therapist think i might have?", A("ADHD"))])
    add("reported_speech", "raise", [M("2026-11-24 17:30",
        "my boss told me im getting a raise in january!! drinks on me")],
        active=[A("raise")],
        queries=[Q("am i getting a raise?", A("raise"))])

    # ------------------------------------------------------------------ pii (2)
    add("pii", "phone", [M("2026-03-28 10:45",
        "new cell is 415-555-0192, can u put that in the form letter")],
        active=[A("415-555-0192")],
        queries=[Q("what's my phone number?", A("415-555-0192"))])
    add("pii", "email", [M("2026-07-14 16:20",
        "use priya.k.nair@gmail.com for the signature, thats my personal one")],
        active=[A("priya.k.nair@gmail.com")],
        queries=[Q("what's my personal email?", A("priya.k.nair@gmail.com"))])

    return b.cases
