"""Writes ../en.jsonl (110 English blind-4 cases)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Builder, anyof  # noqa: E402

B = Builder("en")

# ---------------------------------------------------------------- new_fact (16)
B.new_fact("sesame",
           "can u suggest some snacks for a 9hr train ride? nothing w/ sesame pls, im allergic and not the cute kind lol (epipen kind)",
           "2026-01-14T08:12:00Z", "sesame", "what am i allergic to?")
B.new_fact("type1",
           "ok quick context before my actual question: i'm type 1 diabetic, on a pump since 2019. what's a good pre-run snack that wont spike me",
           "2026-01-29T06:40:00Z", "type 1", "do I have any medical conditions?")
B.new_fact("nights",
           "i work nights at a parcel depot so my 'morning' is like 4pm lol, keep that in mind when u plan my week",
           "2026-02-08T15:55:00Z", "night", "what hours do i work?")
B.new_fact("kayak",
           "been sea kayaking most weekends since april and im hooked. tips for packing a dry bag for an overnight trip?",
           "2026-06-21T19:03:00Z", "kayak", "what do I get up to on weekends?")
B.new_fact("coffee",
           "fyi i take my coffee black. no milk no sugar no oat nonsense lol. anyway whats a decent burr grinder under 100",
           "2026-03-02T07:21:00Z", "black", "how do i take my coffee?")
B.new_fact("twins",
           "i have twin boys, they're 7 and they fight about literally everything smh. ideas for a chore chart that feels fair to both??",
           "2026-04-11T18:30:00Z", "twin", "how many kids have I got?")
B.new_fact("lefty",
           "as a lefty every spiral notebook is my nemesis \U0001F624 recommend a planner that actually works for left handed ppl?",
           "2026-08-30T11:14:00Z", anyof("left"), "am i left handed?")
B.new_fact("sober",
           "i dont drink, 6 yrs sober this june \U0001F642 need mocktail ideas for my friend's bday thing",
           "2026-05-27T20:45:00Z", anyof("sober", "drink"), "do I drink alcohol?")
B.new_fact("portuguese",
           "portuguese is my first language fwiw so if my english sounds weird in this email thats why lol. can u fix it up?",
           "2026-02-17T13:02:00Z", "portuguese", "what's my native language?")
B.new_fact("mazda",
           "what tire pressure should i run in winter on a 2014 mazda 3 hatch? thats what i drive",
           "2026-11-19T08:50:00Z", "mazda", "what car do i drive?")
B.new_fact("migraine",
           "i get migraines a lot, bright screens set them off, so pls keep answers short-ish and no walls of text",
           "2026-03-16T22:10:00Z", "migraine", "what health problems do I have?")
B.new_fact("cilantro",
           "tbh cilantro tastes like soap to me so swap it out in that salsa recipe pls \U0001F64F",
           "2026-07-04T17:36:00Z", "cilantro", "which herbs do i hate?")
B.new_fact("interpreter",
           "ugh long day. so i was booked for a 2hr appointment at the childrens hospital and it ran to 5, the family was lovely "
           "but the doctor kept talking to ME instead of the parents, which happens constantly when you're the sign language "
           "interpreter in the room lol. then my train got cancelled. anyway. how do i politely tell medical staff to address "
           "the deaf person directly without sounding preachy",
           "2026-10-08T21:27:00Z", "interpreter", "what do I do for a living?")
B.new_fact("bike",
           "i bike to work every day, about 11km each way, rain or shine. best waterproof trousers that don't make u look like a crisp packet?",
           "2026-11-03T07:05:00Z", "bike", "how do i get to work?")
B.new_fact("sleep",
           "i'm a terrible sleeper, wide awake at 3am basically every night. any tips that aren't 'no screens before bed' lol",
           "2026-09-05T03:12:00Z", anyof("sleep", "3am"), "do I have trouble sleeping?")
B.new_fact("chess",
           "i play blitz on lichess most nights, around 1650. whats a solid opening for black against e4 that isn't the sicilian",
           "2026-05-02T21:58:00Z", "chess", "what games do i play online?")

# ---------------------------------------------------------------- change (18)
B.change("glasgow", "location",
         [("im in leeds, whats the easiest way to get to the dales w/o a car?", "2026-02-03T10:20:00Z"),
          ("ok new city new me lol. finally done unpacking in glasgow, where do i find decent bagels round here", "2026-05-20T18:45:00Z")],
         "glasgow", "leeds", "where do I live now?", absent_old=True)
B.change("grenoble", "location",
         [("we rent a tiny flat in lyon and the neighbour's dog barks at 6am every single day \U0001F643", "2026-01-09T06:15:00Z"),
          ("first night sleeping in the new house in grenoble!! boxes everywhere but we can see the mountains from the kitchen", "2026-06-28T21:40:00Z")],
         "grenoble", "lyon", "which city do i live in?")
B.change("bookkeeping", "job",
         [("im a line cook at a ramen place, 50hr weeks, my back is toast", "2026-02-11T23:30:00Z"),
          ("hung up the apron for good. doing bookkeeping full time now, never thought spreadsheets would be the chill option lol", "2026-07-02T12:10:00Z")],
         "bookkeep", "cook", "what's my job?")
B.change("apprentice", "job",
         [("i'm a barista for now while i figure life out", "2026-03-04T09:00:00Z"),
          ("no more latte art for me \u2014 started as an electrician's apprentice this week, my hands are wrecked lol", "2026-08-12T19:25:00Z")],
         "apprentice", "barista", "what do i do for work these days?", absent_old=True)
B.change("brightwell", "employer",
         [("i work in the planning team at halvorsen logistics", "2026-01-20T14:00:00Z"),
          ("first week at brightwell insurance done \u2705 my badge photo is cursed", "2026-04-17T17:05:00Z")],
         "brightwell", "halvorsen", "which company do I work for?", absent_old=True)
B.change("ines", "partner",
         [("my bf marco and i have a wedding to go to, help me pick a gift under 80?", "2026-03-15T16:44:00Z"),
          ("marco and i split over the summer. seeing someone new now, her name's ines and she's honestly lovely", "2026-09-30T20:02:00Z")],
         "ines", "marco", "who am i dating?")
B.change("wren", "family",
         [("we're expecting our first baby in march, what do ppl actually need vs what instagram says u need", "2026-01-05T10:30:00Z"),
          ("she's here!! wren arrived at 3am, 3.1kg, everyone's fine, i'm running on zero sleep", "2026-03-09T08:12:00Z")],
         "wren", "expecting", "do I have any kids?")
B.change("pepper", "pet",
         [("my cat biscuit keeps knocking my plants off the shelf, how do i stop her", "2026-02-14T12:00:00Z"),
          ("had to rehome biscuit bc of my partner's allergy \U0001F494 we got a greyhound instead, pepper, she's such a gentle weirdo", "2026-06-06T15:33:00Z")],
         "pepper", "biscuit", "what pet do i have?")
B.change("pescatarian", "diet",
         [("i'm vegetarian, have been since uni", "2026-01-27T19:00:00Z"),
          ("ok dont judge but i'm eating fish again, my b12 was in the gutter. pescatarian now i guess \U0001F41F", "2026-05-08T18:20:00Z")],
         "pescatarian", "vegetarian", "what's my diet like?")
B.change("laptopbudget", "budget",
         [("budget for a new laptop is about $900, what's good for photo editing", "2026-04-02T11:11:00Z"),
          ("update: got a bonus so i can stretch to 1400 for the laptop now", "2026-04-29T13:48:00Z")],
         "1400", "900", "how much can i spend on a laptop?", absent_old=True)
B.change("savings", "amount",
         [("i put 300 a month into savings for a house deposit", "2026-02-06T08:00:00Z"),
          ("rent went up so the deposit pot is only getting 180/mo now ugh", "2026-07-01T21:15:00Z")],
         "180", "300", "how much do I save each month?")
B.change("gymdays", "schedule",
         [("i go to the gym mon/wed/fri at 6am", "2026-01-12T05:30:00Z"),
          ("moved my gym days to tue + thu evenings, the early alarm was killing me", "2026-03-23T18:50:00Z")],
         "tue", "wed", "when do i go to the gym?")
B.change("iphone", "device",
         [("my phone's a pixel 6 and the battery dies by lunch lol", "2026-02-19T12:30:00Z"),
          ("caved and got an iphone 16. how do i move my whatsapp chats over from android", "2026-03-02T20:05:00Z")],
         "iphone", "pixel", "what phone do i have?", absent_old=True)
B.change("macbook", "device",
         [("i do all my editing on an ancient thinkpad x230 lol", "2026-05-11T10:00:00Z"),
          ("rip thinkpad. on a macbook air my sister handed down now, where tf is the delete key", "2026-10-19T16:27:00Z")],
         "macbook", "thinkpad", "what laptop am i using?")
B.change("sertraline", "health",
         [("i take 50mg sertraline every morning", "2026-03-10T07:45:00Z"),
          ("gp upped my dose to 100mg, bit jittery but ok so far", "2026-06-16T09:12:00Z")],
         "100", "50", "what dose of sertraline am I on?")
B.change("physio", "school",
         [("2nd year nursing student at napier, placements are brutal", "2026-02-24T22:00:00Z"),
          ("transferred to the physio degree this term, nursing just wasn't it for me", "2026-09-22T14:35:00Z")],
         "physio", "nursing", "what am i studying?")
B.change("korean", "language",
         [("learning japanese on duolingo, 212 day streak \U0001F525", "2026-01-03T21:00:00Z"),
          ("gave up on japanese tbh. doing korean now since my partner's family is from busan", "2026-04-25T10:18:00Z")],
         "korean", "japanese", "which language am i learning?")
B.change("sardinia", "plan",
         [("planning to walk the camino in september, need boots advice", "2026-03-28T12:00:00Z"),
          ("scrapped the camino idea. we're cycling around sardinia instead, ferry's booked", "2026-06-10T19:40:00Z")],
         "sardinia", "camino", "what trip am I planning?")

# ---------------------------------------------------------------- correction (12)
B.correction("tbilisi",
             [("my flight to tbilisi is oct 14, can u make me a packing list", "2026-09-02T19:00:00Z"),
              ("ugh no sorry the 15th", "2026-09-02T19:02:00Z")],
             ["tbilisi", "15"], "14", "when's my flight to tbilisi?")
B.correction("klara",
             [("my niece clara turns 9 soon, gift ideas that aren't slime?", "2026-05-12T17:20:00Z"),
              ("*klara. with a k. she'd kill me lol", "2026-05-12T17:21:00Z")],
             "klara", "clara", "what's my niece called?")
B.correction("age",
             [("im 34 if that matters for the insurance quote", "2026-08-03T10:05:00Z"),
              ("wait no 35, birthday was last month and i'm still in denial", "2026-08-03T10:06:00Z")],
             "35", "34", "how old am i?")
B.correction("rent",
             [("landlord's putting rent up to 1250 from january", "2026-11-10T18:30:00Z"),
              ("1350* i misread the letter, which is worse \U0001F62D", "2026-11-10T18:33:00Z")],
             "1350", "1250", "what's my rent going to be?")
B.correction("amoxicillin",
             [("i'm allergic to penicillin btw", "2026-02-02T09:40:00Z"),
              ("actually no it's amoxicillin, i always mix those two up", "2026-02-02T09:41:00Z")],
             "amoxicillin", "penicillin", "which antibiotic am I allergic to?")
B.correction("year4",
             [("my daughter's in year 3, what should she be reading", "2026-10-14T19:10:00Z"),
              ("year 4 sorry!! she moved up in september and i keep forgetting", "2026-10-14T19:11:00Z")],
             "year 4", "year 3", "what year is my daughter in?")
B.correction("perth",
             [("my sister lives in dundee, whats a good housewarming gift", "2026-06-18T12:00:00Z"),
              ("perth* sorry, autopilot", "2026-06-18T12:01:00Z")],
             "perth", "dundee", "where does my sister live?")
B.correction("fabia",
             [("just bought a used skoda octavia, 2017, 60k miles", "2026-04-06T15:00:00Z"),
              ("fabia not octavia lol, the small one", "2026-04-06T15:02:00Z")],
             "fabia", "octavia", "what car did i buy?")
B.correction("juno",
             [("our dog juno is a border collie and she needs a job or she eats the sofa", "2026-07-19T08:30:00Z"),
              ("correction she's an aussie shepherd, the vet set me straight lol", "2026-07-19T08:34:00Z")],
             "shepherd", "collie", "what breed is juno?")
B.correction("nair",
             [("my manager is priya raman, need to write her a thank you note", "2026-12-01T16:00:00Z"),
              ("priya nair sorry, raman is a different priya on the team \U0001F648", "2026-12-01T16:01:00Z")],
             "nair", "raman", "what's my manager's name?")
B.correction("shoesize",
             [("i'm a 42 in most shoe brands", "2026-03-25T20:00:00Z"),
              ("43 actually. 42 was before my feet decided to grow at 30", "2026-03-25T20:01:00Z")],
             "43", "42", "what's my shoe size?")
B.correction("bloodtype",
             [("blood type A+ if the form asks", "2026-09-09T11:00:00Z"),
              ("O+ sorry, just checked my donor card", "2026-09-09T11:02:00Z")],
             "O+", "A+", "what's my blood type?")

# ---------------------------------------------------------------- paraphrase_duplicate (10)
B.paraphrase("vegan",
             [("im vegan so no butter in the recipe pls", "2026-01-16T18:00:00Z"),
              ("reminder i don't eat anything that comes from animals \U0001F331", "2026-02-20T18:30:00Z")],
             ["vegan", "animal"], "do i eat animal products?")
B.paraphrase("remote",
             [("i work fully remote", "2026-03-03T09:00:00Z"),
              ("my 'office' is the kitchen table lol, haven't set foot in hq for 2 yrs", "2026-04-14T09:30:00Z")],
             ["remote", "kitchen", "hq"], "do I work from home?")
B.paraphrase("flying",
             [("i really hate flying", "2026-05-05T14:00:00Z"),
              ("planes make me so anxious, i'd rather do 12 hours on a train than a 2 hour flight", "2026-06-01T14:20:00Z")],
             ["fly", "plane", "flight"], "how do i feel about flying?")
B.paraphrase("mum",
             [("my mum lives with us", "2026-02-09T20:00:00Z"),
              ("fyi my mother's with us full time, the spare room's hers now", "2026-03-30T20:10:00Z")],
             ["mum", "mother"], "who lives with me?")
B.paraphrase("nightowl",
             [("im such a night owl", "2026-07-07T23:50:00Z"),
              ("honestly my brain doesn't switch on until after midnight", "2026-08-02T00:40:00Z")],
             ["night"], "am I a morning or evening person?")
B.paraphrase("brothers",
             [("i have two older brothers", "2026-01-21T12:00:00Z"),
              ("im the baby of the family, the other two are both boys", "2026-03-11T12:15:00Z")],
             ["brother", "baby"], "do i have siblings?")
B.paraphrase("drums",
             [("learning the drums atm", "2026-04-03T17:00:00Z"),
              ("still whacking the drum kit every chance i get, getting slightly less awful lol", "2026-05-22T17:10:00Z")],
             ["drum"], "what instrument am i learning?")
B.paraphrase("colourblind",
             [("i'm red-green colourblind", "2026-06-12T10:00:00Z"),
              ("reds and greens look the same to me fyi, always have", "2026-07-20T10:05:00Z")],
             ["red", "colour"], "am I colourblind?")
B.paraphrase("khruangbin",
             [("fav band is khruangbin, no contest", "2026-08-08T19:00:00Z"),
              ("nothing beats khruangbin for me, been my #1 for years", "2026-10-01T19:30:00Z")],
             ["khruangbin"], "what's my favourite band?")
B.paraphrase("carless",
             [("i don't own a car", "2026-09-01T08:00:00Z"),
              ("carless and loving it lol, tram + my own two feet get me everywhere", "2026-10-12T08:20:00Z")],
             ["car", "tram"], "do I have a car?")

# ---------------------------------------------------------------- third_person (12)
B.third("dana", "my sister dana just started as an icu nurse in cardiff, so proud of her \U0001F979",
        "2026-01-31T18:00:00Z", "nurse", ["dana", "sister"], "what does my sister do for work?")
B.third("felix", "my husband felix is gluten intolerant so the dinner party menu has to work for him. ideas?",
        "2026-02-26T16:20:00Z", "gluten", ["felix", "husband"], "what can't my husband eat?")
B.third("mochi", "our dog mochi is terrified of thunder, any calming tips?",
        "2026-07-13T20:45:00Z", "thunder", ["mochi", "dog"], "what is mochi scared of?")
B.third("arlo", "my son arlo (11) just got diagnosed with adhd. feeling a lot of things rn",
        "2026-03-19T21:05:00Z", "adhd", ["arlo", "son"], "what was my son diagnosed with?")
B.third("bettina", "my coworker bettina is obsessed with true crime podcasts, which one could i gift her a sub to?",
        "2026-11-25T12:40:00Z", "true crime", ["bettina", "coworker"], "what is bettina into?")
B.third("postoffice", "my dad worked at the post office for 31 years, writing a speech for his retirement do",
        "2026-06-03T19:00:00Z", "post office", ["dad"], "where did my dad work?")
B.third("yusuf", "my best mate yusuf lives in rotterdam and does something with ship engines idk",
        "2026-04-20T22:15:00Z", "rotterdam", ["yusuf", "mate"], "where does yusuf live?")
B.third("partnerveg", "my partner's vegetarian but i'll eat basically anything lol, need a meal plan that works for both",
        "2026-05-14T11:30:00Z", "vegetarian", ["partner"], "does my partner eat meat?")
B.third("rosa", "my grandma rosa is 92 and still does the crossword in pen every single morning",
        "2026-08-16T09:10:00Z", "crossword", ["rosa", "grandma"], "what does my grandma do every morning?")
B.third("pistachio", "our cat pistachio is on a renal diet (kidney stuff), are those lickable treats ok for her?",
        "2026-09-27T14:00:00Z", anyof("renal", "kidney"), ["pistachio", "cat"], "what special diet is my cat on?")
B.third("jonas", "my roommate jonas works overnights at the hospital so we have to tiptoe in the mornings",
        "2026-10-22T07:30:00Z", "hospital", ["jonas", "roommate"], "where does jonas work?")
B.third("ayla", "my daughter ayla just started at greenfield primary, her first week went great",
        "2026-09-11T15:45:00Z", "greenfield", ["ayla", "daughter"], "what school does ayla go to?")

# ---------------------------------------------------------------- multi_clause (10)
B.multi("sana", "ok intro time: i'm sana, 29, vet nurse in bristol, and i have a very dramatic parrot called kiwi \U0001F99C",
        "2026-01-02T12:00:00Z", ["sana", "vet nurse", "bristol", "kiwi"])
B.multi("spicy", "need a menu for sunday. context: i can't handle spicy food, my husband's allergic to shellfish, and my in-laws are coming",
        "2026-02-12T19:30:00Z", ["spicy", "shellfish"])
B.multi("money", "doing my budget rn lol. i make 52k, rent is 1100 and there's about 18k left on my student loan",
        "2026-03-06T21:00:00Z", ["52k", "1100", "18k"])
B.multi("chemistry", "i teach high school chemistry, coach debate on tuesdays and i'm doing a part-time masters in ed policy, so yeah i'm tired",
        "2026-04-09T22:30:00Z", ["chemistry", "debate", "policy"])
B.multi("carsick", "bit of background before u plan the trip: i don't drive, buses make me carsick, and i'm happy walking for hours",
        "2026-05-19T10:00:00Z", ["drive", "carsick", "walk"])
B.multi("jazz", "for the record: bday is march 9, i'm a morning person, and i cannot stand jazz. at all.",
        "2026-06-15T08:00:00Z", [["march", "9"], "morning", "jazz"])
B.multi("narrowboat", "my two cats are olive and fig, my partner's dev, and we live on a narrowboat near oxford lol",
        "2026-07-24T13:10:00Z", ["olive", "fig", "dev", "narrowboat"])
B.multi("pottery", "quick q but first: i run a tiny pottery studio, sell mostly on etsy, and november is always my busiest month. how far ahead should i make stock",
        "2026-08-05T09:25:00Z", ["pottery", "etsy", "november"])
B.multi("languages", "i speak french and arabic at home, english at work, and i'm slowly picking up turkish",
        "2026-10-05T17:00:00Z", ["french", "arabic", "turkish"])
B.multi("asthma", "health stuff so u know: asthma since i was a kid, allergic to cats (tragic), and i take vitamin d every morning",
        "2026-11-14T08:45:00Z", ["asthma", "cat", "vitamin d"])

# ---------------------------------------------------------------- chitchat (12)
B.chitchat("thanks", [("lol thank u that's perfect", "2026-01-08T10:00:00Z")])
B.chitchat("shorter", [("shorter pls", "2026-02-04T11:00:00Z"), ("even shorter, like one line", "2026-02-04T11:01:30Z")])
B.chitchat("hey", [("heyyy", "2026-03-13T09:00:00Z"), ("u there?", "2026-03-13T09:02:00Z")])
B.chitchat("thumbs", [("ok cool \U0001F44D", "2026-04-18T15:00:00Z")])
B.chitchat("tone", [("hmm can u redo it but less formal? sounds like a bank wrote it lol", "2026-05-29T13:20:00Z")])
B.chitchat("haha", [("hahaha ok that one got me \U0001F602", "2026-06-25T22:00:00Z")])
B.chitchat("morning", [("morning!! \u2600\ufe0f how's it going", "2026-07-15T07:00:00Z")])
B.chitchat("lifesaver", [("ty ty ur a lifesaver fr", "2026-08-21T18:00:00Z")])
B.chitchat("again", [("wait what", "2026-09-16T20:00:00Z"), ("say that again but slower lol", "2026-09-16T20:00:40Z")])
B.chitchat("nvm", [("nvm figured it out", "2026-10-11T14:00:00Z"), ("ignore me \U0001F643", "2026-10-11T14:00:20Z")])
B.chitchat("table", [("can u put that in a table instead", "2026-11-06T10:30:00Z")])
B.chitchat("bye", [("ok that's all for today, ttyl \U0001F44B", "2026-11-28T23:00:00Z")])

# ---------------------------------------------------------------- relative_date (9)
B.reldate("wisdom", "got my wisdom teeth out yesterday and i look like a chipmunk lol. soft food ideas?",
          "2026-03-11T14:05:00Z", "wisdom", "2026-03-10")
B.reldate("drivingtest", "PASSED MY DRIVING TEST last friday!!! 3rd time lucky \U0001F697",
          "2026-05-06T09:30:00Z", "driving test", "2026-05-01")
B.reldate("dentist", "dentist appt next friday at 9, remind me not to eat garlic the night before lol",
          "2026-06-09T20:15:00Z", "dentist", "2026-06-19")
B.reldate("newjob", "started a new job 3 days ago and i already know everyone's coffee order lmao",
          "2026-07-20T12:00:00Z", "job", "2026-07-17")
B.reldate("clementine", "we adopted a rescue bunny two weeks ago, her name's clementine and she hates everyone but me",
          "2026-08-12T17:40:00Z", "clementine", "2026-07-29")
B.reldate("halfmarathon", "did my first half marathon last month, 2:04, legs still filing complaints",
          "2026-10-03T08:00:00Z", "half marathon", "2026-09-01")
B.reldate("wedding", "my sister's wedding is on saturday and i haven't written my speech \U0001F62D help",
          "2026-04-22T21:10:00Z", "wedding", "2026-04-25")
B.reldate("flat", "moved into the new flat in may and still no curtains lol, what's a cheap blackout option",
          "2026-09-14T07:50:00Z", "flat", "2026-05-01")
B.reldate("allotment", "got the keys to my allotment plot on march 3, already stuck some garlic in",
          "2026-03-20T16:30:00Z", "allotment", "2026-03-03")

# ---------------------------------------------------------------- plan (6)
B.plan("trondheim",
       [("i live in bergen, rains 200+ days a year lol", "2026-02-10T10:00:00Z"),
        ("big news: we're moving to trondheim in the spring, the job offer came through \U0001F389", "2026-11-02T19:00:00Z")],
       "trondheim", "where do i live right now?", now_key="bergen")
B.plan("urbanplanning",
       [("im a paralegal rn, its fine but not forever", "2026-03-03T12:00:00Z"),
        ("thinking of applying for an urban planning masters next year, maybe in delft", "2026-03-25T12:30:00Z")],
       "urban planning", "what's my job?", now_key="paralegal")
B.plan("sub25",
       [("goal: sub-25 5k before i turn 40 in november. currently at 27:30 \U0001F62C", "2026-05-18T06:30:00Z")],
       "5k", "what's my running goal?")
B.plan("leaf",
       [("we've got a 2012 honda jazz, runs fine but guzzles", "2026-04-14T17:00:00Z"),
        ("plan is to sell the jazz next year and get a used leaf", "2026-04-30T17:30:00Z")],
       "leaf", "what car do we have?", now_key="jazz")
B.plan("lofoten",
       [("booked a week in lofoten for august!! first real holiday in 3 yrs", "2026-02-22T20:00:00Z")],
       "lofoten", "where am i going on holiday?")
B.plan("propose",
       [("planning to propose to lena on her birthday in october, the ring's hidden in my sock drawer lol. ideas for where?", "2026-07-07T22:00:00Z")],
       "propos", "what am I planning for lena's birthday?")

# ---------------------------------------------------------------- reported_speech (3)
B.reported("knee", "my physio said my left knee has the cartilage of a 60 yr old \U0001F643 i'm 38",
           "2026-04-28T18:00:00Z", "knee", "what did my physio say about my knee?")
B.reported("teamlead", "boss told me today i'm getting the team lead role from march!!",
           "2026-11-20T17:30:00Z", "team lead", "what role am i getting?")
B.reported("glasses", "optician says i need reading glasses now. feeling ancient at 41",
           "2026-06-30T13:00:00Z", "reading glasses", "do I need glasses?")

# ---------------------------------------------------------------- pii (2)
B.pii("email", "can u draft a note to my landlord about the boiler? sign off w/ my contact: r.falconer88@fastmail.com",
      "2026-10-27T09:15:00Z", "r.falconer88@fastmail.com", "what's my email address?")
B.pii("phone", "new mobile number btw, 07700900318, old one's dead",
      "2026-12-03T18:00:00Z", "07700900318", "what's my phone number?")

if __name__ == "__main__":
    out = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "en.jsonl")
    B.write(out)
    print("wrote %d cases to %s" % (len(B.cases), out))
