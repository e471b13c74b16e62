from lib import *
L = "en"
cases = []
add = cases.append

# ---------------- new_fact (16) ----------------
add(C("en-new_fact-b2treenut-01", "new_fact", [
    ("ok so for the dinner party menu — btw im allergic to tree nuts (not peanuts weirdly, just tree nuts) so no pesto w pine nuts pls", "2026-01-14T19:42:00Z")],
    active=[A("tree nut")],
    queries=[Q("what am i allergic to?", A("tree nut"))]))
add(C("en-new_fact-b2boulder-01", "new_fact", [
    ("ngl bouldering has become my whole personality lol, i go like 4x a week to the gym by my place. anyway what should i eat after a session", "2026-02-02T22:10:00Z")],
    active=[A("bouldering")],
    queries=[Q("what sport am i into", A("bouldering"))]))
add(C("en-new_fact-b2t1d-01", "new_fact", [
    ("can u add carb counts to these recipes? ive been type 1 diabetic since i was 12 so i kinda need them for dosing", "2026-02-19T12:05:00Z")],
    active=[A("type 1")],
    queries=[Q("do I have any medical conditions?", A(any=["diabet"]))]))
add(C("en-new_fact-b2cello-01", "new_fact", [
    ("been playing cello for like 15 yrs, orchestra all thru college and everything. now it's just for fun on sunday afternoons", "2026-03-08T16:30:00Z")],
    active=[A("cello")],
    queries=[Q("what instrument do i play", A("cello"))]))
add(C("en-new_fact-b2remote-01", "new_fact", [
    ("so i work fully remote for a fintech startup and my 'office' is literally the kitchen table lol. need a cheap standing desk rec", "2026-03-23T10:14:00Z")],
    active=[A("remote")],
    queries=[Q("do i work from an office or remote?", A("remote"))]))
add(C("en-new_fact-b2blackcoffee-01", "new_fact", [
    ("what should i order at this cafe? fyi i hate anything sweet, black coffee only, always has been", "2026-04-04T08:47:00Z")],
    active=[A("black")],
    queries=[Q("how do i take my coffee", A("black"))]))
add(C("en-new_fact-b2nightowl-01", "new_fact", [
    ("im a night owl fr, never asleep before 2am and i do my best work around midnight. so dont schedule my study blocks in the morning lol", "2026-04-17T01:55:00Z")],
    active=[A(any=["night owl", "2am", "2 am", "midnight"])],
    queries=[Q("when am i most productive", A(any=["night owl", "midnight", "2am", "2 am"]))]))
add(C("en-new_fact-b2outback-01", "new_fact", [
    ("how often should i change oil on a 2014 subaru outback w 190k miles? thats what i drive, she's held together by prayer and duct tape", "2026-05-01T17:20:00Z")],
    active=[A("outback")],
    queries=[Q("what car do i drive", A("outback"))]))
add(C("en-new_fact-b2tucson-01", "new_fact", [
    ("we own our house in tucson (bought in 2019) and the AC is dying, is it worth repairing or just replace??", "2026-05-22T21:03:00Z")],
    active=[A("tucson")],
    queries=[Q("where is my house", A("tucson"))]))
add(C("en-new_fact-b2recife-01", "new_fact", [
    ("sorry if my english is weird sometimes, portuguese is my first language, i grew up in recife", "2026-06-06T13:40:00Z")],
    active=[A("portuguese"), A("recife")],
    queries=[Q("where did i grow up", A("recife"))]))
add(C("en-new_fact-b2cilantro-01", "new_fact", [
    ("making salsa for the bbq — leave the cilantro out, it tastes like straight up soap to me 🤢", "2026-06-27T18:12:00Z")],
    active=[A("cilantro")],
    queries=[Q("any herbs i dont like?", A("cilantro"))]))
add(C("en-new_fact-b2pharmacist-01", "new_fact", [
    ("ugh long day. 12 hrs on my feet at the counter again, being a pharmacist in retail is brutal. anyway whats a good stretch for lower back", "2026-07-09T23:31:00Z")],
    active=[A("pharmacist")],
    queries=[Q("what's my job", A("pharmacist"))]))
add(C("en-new_fact-b2colorblind-01", "new_fact", [
    ("when u describe charts for me dont rely on red vs green lol, im red-green colorblind", "2026-07-28T15:05:00Z")],
    active=[A(any=["colorblind", "color blind", "color-blind", "colour"])],
    queries=[Q("anything about my eyesight i should remember?", A(any=["colorblind", "color blind", "color-blind", "colour"]))]))
add(C("en-new_fact-b2youngest-01", "new_fact", [
    ("honestly a loud house doesnt bother me, im the youngest of 5 kids so chaos is my natural habitat 😂", "2026-08-15T20:20:00Z")],
    active=[A("youngest")],
    queries=[Q("where am i in the birth order?", A("youngest"))]))
add(C("en-new_fact-b2flying-01", "new_fact", [
    ("we're driving to the wedding in asheville bc im terrified of flying, like full on panic attack at the gate. can u plan a route w good stops", "2026-09-04T14:48:00Z")],
    active=[A("fly")],
    queries=[Q("why don't i like planes", A("fly"))]))
add(C("en-new_fact-b2celiac-01", "new_fact", [
    ("celiac here 🙋‍♀️ so the bread for the stuffing has to be gf, cross contamination matters too", "2026-11-20T16:00:00Z")],
    active=[A("celiac")],
    queries=[Q("do i have any dietary restrictions", A("celiac"))]))

# ---------------- change (18) ----------------
add(C("en-change-b2location-01", "change", [
    ("any good climbing gyms in denver? i live in capitol hill so close to there ideally", "2026-02-03T18:22:00Z"),
    ("ok officially a portlander now 🌲 boxes everywhere. need a good pho spot near me", "2026-07-19T20:05:00Z")],
    slot="location",
    active=[A("portland")], superseded=[A("denver")],
    queries=[Q("what city do i live in", A("portland"))]))
add(C("en-change-b2location-02", "change", [
    ("still stuck in my parents basement in columbus lol, saving up for a place", "2026-01-11T03:10:00Z"),
    ("finally signed a lease and got my keys!! my own 1br in cincinnati, right above a bakery, the smell is unreal", "2026-04-26T15:44:00Z")],
    slot="location",
    active=[A("cincinnati")], superseded=[A("columbus")],
    queries=[Q("where do i live", A("cincinnati"))]))
add(C("en-change-b2job-01", "change", [
    ("i teach 8th grade science and summer cant come soon enough lmao", "2026-03-04T21:15:00Z"),
    ("update: i quit teaching. doing ux design full time now at a small agency, still learning figma tbh", "2026-09-02T17:30:00Z")],
    slot="job",
    active=[A("ux")], superseded=[A(any=["science", "8th grade"])],
    queries=[Q("what do i do for a living", A("ux"))]))
add(C("en-change-b2job-02", "change", [
    ("as a paralegal i basically live in westlaw, any tips for not going blind staring at it all day", "2026-02-10T16:02:00Z"),
    ("PASSED THE BAR!!! 🎉 got sworn in and everything, im an actual attorney now, still feels fake", "2026-11-18T19:26:00Z")],
    slot="job",
    active=[A("attorney")], superseded=[A("paralegal")],
    queries=[Q("what's my job now", A("attorney"))]))
add(C("en-change-b2partner-01", "change", [
    ("my bf jake wants to go camping for our anniversary, any ideas that arent miserable", "2026-03-15T22:40:00Z"),
    ("jake and i are done. like done done. anyway ive been seeing this girl priya for about a month and shes great", "2026-08-09T01:12:00Z")],
    slot="partner",
    active=[A("priya")], superseded=[A("jake")],
    queries=[Q("who am i dating", A("priya"))]))
add(C("en-change-b2partner-02", "change", [
    ("me and my husband tom are thinking about redoing the kitchen, how much does that usually run", "2026-01-25T19:00:00Z"),
    ("divorce is final as of today. tom keeps the house, i keep the dog lol. starting over at 41", "2026-10-13T17:45:00Z")],
    slot="partner",
    active=[A("divorce")], superseded=[A("tom")],
    queries=[Q("am i still married?", A("divorce"))]))
add(C("en-change-b2employer-01", "change", [
    ("at deloitte we log hours in 6 minute increments. six. minutes. kill me", "2026-02-24T14:33:00Z"),
    ("first week at stripe done ✅ way less soul crushing than deloitte ngl", "2026-06-12T23:05:00Z")],
    slot="employer",
    active=[A("stripe")], superseded=[A("deloitte")],
    queries=[Q("which company do i work for", A("stripe"))]))
add(C("en-change-b2pet-01", "change", [
    ("my hamster biscuit escaped AGAIN, found him inside the couch cushion. how do i hamster proof a room", "2026-04-02T02:30:00Z"),
    ("rip biscuit 😢 he was 3 which is ancient for a hamster. we adopted a bunny this weekend tho, her name is clover", "2026-08-31T18:18:00Z")],
    slot="pet",
    active=[A("clover")], superseded=[A("biscuit")],
    queries=[Q("what pet do i have", A("clover"))]))
add(C("en-change-b2diet-01", "change", [
    ("im vegetarian so sub the chicken w something pls", "2026-01-07T18:50:00Z"),
    ("ok confession i started eating fish again, doc said my iron was tanking. so pescatarian now i guess 🐟", "2026-05-16T12:25:00Z")],
    slot="diet",
    active=[A("pescatarian")], superseded=[A("vegetarian")],
    queries=[Q("what's my diet", A("pescatarian"))]))
add(C("en-change-b2budget-01", "change", [
    ("looking for a used car, budget is 12k max, nothing w a cvt pls", "2026-03-01T20:00:00Z"),
    ("car hunt update: my parents are chipping in so budget's more like 18k now 🙏", "2026-03-19T21:35:00Z")],
    slot="budget",
    active=[A(any=["18k", "18,000", "18000"])], superseded=[A(any=["12k", "12,000", "12000"])],
    queries=[Q("how much can i spend on the car", A(any=["18k", "18,000", "18000"]))]))
add(C("en-change-b2rent-01", "change", [
    ("rent is $1,900 a month for a 1 bed here which is insane", "2026-02-14T15:10:00Z"),
    ("welp rent went up to 2150 this month 🙃 landlord said 'market rate'. whatever that means", "2026-09-01T13:02:00Z")],
    slot="amount",
    active=[A(any=["2150", "2,150"])], superseded=[A(any=["1,900", "1900"])],
    queries=[Q("how much is my rent", A(any=["2150", "2,150"]))]))
add(C("en-change-b2shift-01", "change", [
    ("i work nights at the hospital, 7p to 7a, so i sleep during the day. blackout curtain recs?", "2026-01-30T14:00:00Z"),
    ("switched to day shift finally!!! 7a-7p and i feel like a human again", "2026-06-03T21:48:00Z")],
    slot="schedule",
    active=[A("day shift")], superseded=[A("night")],
    queries=[Q("what shift do i work", A("day shift"))]))
add(C("en-change-b2phone-01", "change", [
    ("im an android person, pixel 7 rn. how do i turn off the at a glance thing", "2026-02-06T09:20:00Z"),
    ("caved and got an iphone 16 lol. pixel screen died and literally everyone i know uses imessage", "2026-07-22T19:55:00Z")],
    slot="device",
    active=[A("iphone")], superseded=[A("pixel")],
    queries=[Q("what phone do i have", A("iphone"))]))
add(C("en-change-b2bpmeds-01", "change", [
    ("i take lisinopril for blood pressure every morning, is it ok w grapefruit", "2026-03-12T07:40:00Z"),
    ("doc took me off lisinopril bc of the cough, im on amlodipine now", "2026-05-28T16:15:00Z")],
    slot="health",
    active=[A("amlodipine")], superseded=[A("lisinopril")],
    queries=[Q("what blood pressure med am i on", A("amlodipine"))]))
add(C("en-change-b2college-01", "change", [
    ("im at santa monica college doing my GEs, trying to transfer eventually", "2026-02-21T18:10:00Z"),
    ("first week at ucla done, campus is huge i got lost like 3 times lol. transfer life", "2026-10-03T02:20:00Z")],
    slot="school",
    active=[A("ucla")], superseded=[A("santa monica")],
    queries=[Q("what school do i go to", A("ucla"))]))
add(C("en-change-b2japanese-01", "change", [
    ("learning spanish on duolingo, 200 day streak 🔥", "2026-01-18T22:00:00Z"),
    ("ok i gave up on spanish tbh. switched to japanese since we're going to tokyo next spring, hiragana is kicking my butt", "2026-06-20T23:10:00Z")],
    slot="language",
    active=[A("japanese")], superseded=[A("spanish")],
    queries=[Q("what language am i learning", A("japanese"))]))
add(C("en-change-b2household-01", "change", [
    ("its just me and my dad at home since mom passed, so cooking for 2", "2026-02-08T19:30:00Z"),
    ("dad moved into assisted living so its just me in the house now. weirdly quiet. recipes for one?", "2026-09-21T18:45:00Z")],
    slot="family",
    active=[A("assisted living")], superseded=[A("dad")],
    queries=[Q("does my dad still live with me", A("assisted living"))]))
add(C("en-change-b2marathon-01", "change", [
    ("training for the nyc marathon in november!! first one ever, 16 wk plan", "2026-04-05T11:00:00Z"),
    ("scrapping the nyc plan, my knee is not having it. doing the chicago half in october instead", "2026-07-14T12:30:00Z")],
    slot="plan",
    active=[A("chicago")], superseded=[A("nyc")],
    queries=[Q("what race am i training for", A("chicago"))]))

# ---------------- correction (12) ----------------
add(C("en-correction-b2bday-01", "correction", [
    ("my daughter's bday is march 14, can u remind me to order the cake a week before", "2026-02-01T20:00:00Z"),
    ("wait no march 17. i always mix hers up w my nephew's", "2026-02-01T20:02:00Z")],
    active=[A("march 17")], absent=[A("march 14")],
    queries=[Q("when is my daughter's birthday", A("march 17"))]))
add(C("en-correction-b2age-01", "correction", [
    ("im 34 and just now getting into skincare lol where do i start", "2026-03-09T02:11:00Z"),
    ("lol 35 actually, had a bday last month and im in denial", "2026-03-09T02:12:00Z")],
    active=[A("35")], absent=[A("34")],
    queries=[Q("how old am i", A("35"))]))
add(C("en-correction-b2sulfa-01", "correction", [
    ("allergic to penicillin fyi, for when i ask about meds", "2026-04-11T10:05:00Z"),
    ("sorry not penicillin — sulfa drugs. penicillin is my mom's thing", "2026-04-11T10:06:00Z")],
    active=[A("sulfa")], absent=[A("penicillin", none=["mom", "mother"])],
    queries=[Q("what medication am i allergic to", A("sulfa"))]))
add(C("en-correction-b2accord-01", "correction", [
    ("my car's a honda civic, what tires should i get for winter", "2026-11-02T17:30:00Z"),
    ("accord* not civic lol im tired", "2026-11-02T17:31:00Z")],
    active=[A("accord")], absent=[A("civic")],
    queries=[Q("what car do i have", A("accord"))]))
add(C("en-correction-b2miso-01", "correction", [
    ("my dog's name is mochi, help me write a little bio for her instagram 🐶", "2026-05-05T21:00:00Z"),
    ("MISO omg i just called my own dog the wrong name. mochi is the neighbors cat", "2026-05-05T21:01:00Z")],
    active=[A("miso")], absent=[A("mochi", none=["neighbor"])],
    queries=[Q("what's my dog called", A("miso"))]))
add(C("en-correction-b2officedays-01", "correction", [
    ("i go into the office 3 days a week, mon tue wed", "2026-06-15T08:10:00Z"),
    ("wait no, tue wed thu. monday's my wfh day", "2026-06-15T08:11:00Z")],
    active=[A("thu")], absent=[A("mon", "tue", "wed", none=["thu"])],
    queries=[Q("which days am i in the office", A("thu"))]))
add(C("en-correction-b2floor-01", "correction", [
    ("my apartment is on the 4th floor, no elevator 💀 so the couch delivery is gonna be fun", "2026-07-03T16:00:00Z"),
    ("correction 5th floor. i counted the stairs today out of spite", "2026-07-03T19:40:00Z")],
    active=[A(any=["5th", "fifth"])], absent=[A(any=["4th", "fourth"])],
    queries=[Q("what floor is my apartment on", A(any=["5th", "fifth"]))]))
add(C("en-correction-b2therapy-01", "correction", [
    ("my standing therapy appt is tuesdays at 4 so dont put anything there", "2026-08-03T13:20:00Z"),
    ("wait no, thursdays. tuesday is piano lol", "2026-08-03T13:21:00Z")],
    active=[A("therapy", "thursday")], absent=[A("therapy", "tuesday", none=["thursday"])],
    queries=[Q("when is my therapy appointment", A("therapy", "thursday"))]))
add(C("en-correction-b2caitlin-01", "correction", [
    ("my partner katelyn's bday is coming up, what's a good gift for someone who's into pottery", "2026-09-10T22:00:00Z"),
    ("*caitlin. with a C. she'd kill me lol", "2026-09-10T22:01:00Z")],
    active=[A("caitlin")], absent=[A("katelyn")],
    queries=[Q("what's my partner's name", A("caitlin"))]))
add(C("en-correction-b2lille-01", "correction", [
    ("im originally from lyon so french food opinions incoming", "2026-10-01T12:00:00Z"),
    ("sorry not lyon, lille. lyon is where i did my masters", "2026-10-01T12:03:00Z")],
    active=[A("lille")], absent=[A("lyon", none=["master"])],
    queries=[Q("where am i from originally", A("lille"))]))
add(C("en-correction-b2salary-01", "correction", [
    ("i make about 62k a year, is 1400 rent too much?", "2026-10-19T20:30:00Z"),
    ("ugh typo, 68k", "2026-10-19T20:31:00Z")],
    active=[A(any=["68k", "68,000", "68000"])], absent=[A(any=["62k", "62,000", "62000"])],
    queries=[Q("what's my salary", A(any=["68k", "68,000", "68000"]))]))
add(C("en-correction-b2pumpkin-01", "correction", [
    ("i have two cats so i need a litter box setup for 2", "2026-11-28T15:15:00Z"),
    ("three*. forgot pumpkin, she lives under the bed and we never see her lol", "2026-11-28T15:17:00Z")],
    active=[A(any=["three", "3"]), A("pumpkin")], absent=[A(any=["two cats", "2 cats"])],
    queries=[Q("how many cats do i have", A(any=["three", "3 cats"]))]))

# ---------------- paraphrase_duplicate (10) ----------------
add(C("en-paraphrase_duplicate-b2shellfish-01", "paraphrase_duplicate", [
    ("im allergic to shellfish btw", "2026-01-09T18:00:00Z"),
    ("anything w shrimp or crab is a hard no for me, shellfish and i dont get along 🦐", "2026-02-20T19:30:00Z")],
    count=[N(A("shellfish"), 1)],
    queries=[Q("what food allergies do i have", A("shellfish"))]))
add(C("en-paraphrase_duplicate-b2run5k-01", "paraphrase_duplicate", [
    ("i run every morning before work, usually a 5k", "2026-02-11T06:15:00Z"),
    ("my daily sunrise 5k is honestly the only thing keeping me sane lol", "2026-04-03T06:50:00Z")],
    count=[N(A("5k"), 1)],
    queries=[Q("what's my exercise routine", A("5k"))]))
add(C("en-paraphrase_duplicate-b2nicu-01", "paraphrase_duplicate", [
    ("im a nurse in the NICU", "2026-03-03T04:00:00Z"),
    ("taking care of tiny preemies all night in the NICU is intense but i love it", "2026-05-10T05:20:00Z")],
    count=[N(A("nicu"), 1)],
    queries=[Q("where do i work", A("nicu"))]))
add(C("en-paraphrase_duplicate-b2vermont-01", "paraphrase_duplicate", [
    ("grew up in a tiny town in vermont, like 900 people", "2026-04-14T15:00:00Z"),
    ("vermont kid through and through lol, born and raised, maple syrup in my veins", "2026-06-30T17:45:00Z")],
    count=[N(A("vermont"), 1)],
    queries=[Q("where did i grow up", A("vermont"))]))
add(C("en-paraphrase_duplicate-b2lefty-01", "paraphrase_duplicate", [
    ("im left handed so regular scissors are my mortal enemy", "2026-05-06T11:11:00Z"),
    ("as a lefty, this desk setup w the mouse on the right is hell", "2026-08-18T14:25:00Z")],
    count=[N(A("left"), 1)],
    queries=[Q("which hand do i write with", A("left"))]))
add(C("en-paraphrase_duplicate-b2nocoffee-01", "paraphrase_duplicate", [
    ("i dont drink coffee at all, tea person", "2026-06-01T09:00:00Z"),
    ("coffee makes me super jittery so i skip it, always", "2026-07-25T10:30:00Z")],
    count=[N(A("coffee"), 1)],
    queries=[Q("do i drink coffee", A("coffee"))]))
add(C("en-paraphrase_duplicate-b2twinrosa-01", "paraphrase_duplicate", [
    ("i have an identical twin, her name is rosa", "2026-07-07T20:00:00Z"),
    ("rosa and i get mixed up constantly, even our grandma does it, being twins is wild", "2026-09-12T21:15:00Z")],
    count=[N(A("rosa"), 1)],
    queries=[Q("do i have a twin", A("rosa"))]))
add(C("en-paraphrase_duplicate-b2knit-01", "paraphrase_duplicate", [
    ("i knit a lot, mostly sweaters", "2026-08-08T19:00:00Z"),
    ("the knitting obsession continues lol sweater #9 is on the needles rn", "2026-10-22T20:40:00Z")],
    count=[N(A("knit"), 1)],
    queries=[Q("what's my hobby", A("knit"))]))
add(C("en-paraphrase_duplicate-b2myopia-01", "paraphrase_duplicate", [
    ("im super nearsighted, like -7", "2026-09-05T13:00:00Z"),
    ("w/o my glasses i literally cant see the big E on the chart. -7 both eyes 🥲", "2026-11-09T16:10:00Z")],
    count=[N(A("-7"), 1)],
    queries=[Q("what's my glasses prescription", A("-7"))]))
add(C("en-paraphrase_duplicate-b2lirr-01", "paraphrase_duplicate", [
    ("my commute is 90 min each way on the LIRR", "2026-10-06T12:30:00Z"),
    ("3 hrs a day round trip on the LIRR, pray for me", "2026-11-24T23:00:00Z")],
    count=[N(A("lirr"), 1)],
    queries=[Q("how do i get to work", A("lirr"))]))

# ---------------- third_person (12) ----------------
add(C("en-third_person-b2maya-01", "third_person", [
    ("my sister maya's a dentist so i get free cleanings lol perks", "2026-01-16T17:00:00Z")],
    active=[A("maya", "dentist")], absent=[A("dentist", none=["maya", "sister"])],
    queries=[Q("what does maya do", A("maya", "dentist"))]))
add(C("en-third_person-b2noodle-01", "third_person", [
    ("my cat noodle turned 14 today 🎂 old man still thinks hes a kitten", "2026-02-27T21:00:00Z")],
    active=[A("noodle")], absent=[A("14", none=["noodle", "cat"])],
    queries=[Q("how old is noodle", A("noodle", "14"))]))
add(C("en-third_person-b2eli-01", "third_person", [
    ("my son eli is in third grade and already better at math than me, can u explain long division so i can keep up", "2026-03-18T01:30:00Z")],
    active=[A("eli", any=["third", "3rd"])],
    queries=[Q("what grade is my son in", A("eli", any=["third", "3rd"]))]))
add(C("en-third_person-b2marcus-01", "third_person", [
    ("my husband marcus is a firefighter so he's gone for 24hr shifts and im solo parenting a lot", "2026-04-08T19:10:00Z")],
    active=[A("marcus", "firefighter")], absent=[A("firefighter", none=["marcus", "husband"])],
    queries=[Q("what does my husband do", A("firefighter"))]))
add(C("en-third_person-b2momdiabetes-01", "third_person", [
    ("my mom just got diagnosed w type 2 diabetes, what are easy low carb dinners she'd actually like", "2026-05-12T00:45:00Z")],
    active=[A("diabet", any=["mom", "mother"])], absent=[A("diabet", none=["mom", "mother"])],
    queries=[Q("what's going on with my mom's health", A("diabet"))]))
add(C("en-third_person-b2jess-01", "third_person", [
    ("my roommate jess is vegan so our fridge is like 80% tofu lmao", "2026-06-02T18:00:00Z")],
    active=[A("jess", "vegan")], absent=[A("vegan", none=["jess", "roommate"])],
    queries=[Q("who's vegan", A("jess"))]))
add(C("en-third_person-b2linda-01", "third_person", [
    ("my boss linda is moving to london next month so we're getting a new manager, kinda nervous", "2026-07-01T14:20:00Z")],
    active=[A("linda", "london")], absent=[A("london", none=["linda"])],
    queries=[Q("where is linda moving", A("linda", "london"))]))
add(C("en-third_person-b2kayla-01", "third_person", [
    ("my best friend kayla is PREGNANT!!! im gonna be an auntie (unofficially) 😭💕", "2026-07-20T02:05:00Z")],
    active=[A("kayla", "pregnant")], absent=[A("pregnant", none=["kayla"])],
    queries=[Q("who's pregnant", A("kayla"))]))
add(C("en-third_person-b2dadretire-01", "third_person", [
    ("dad retired from the post office after 32 yrs and hes already driving my mom nuts lol", "2026-08-12T18:30:00Z")],
    active=[A("retire", any=["dad", "father"])], absent=[A("retire", none=["dad", "father"])],
    queries=[Q("is my dad still working", A("retire"))]))
add(C("en-third_person-b2bruno-01", "third_person", [
    ("our dog bruno is a bernese, 110 lbs of pure fluff. what brush do i need for that", "2026-09-25T16:40:00Z")],
    active=[A("bruno", "bernese")], absent=[A("110", none=["bruno", "dog"])],
    queries=[Q("what breed is bruno", A("bernese"))]))
add(C("en-third_person-b2grandma90-01", "third_person", [
    ("my grandma turns 90 next week and she still does her own taxes, help me write a toast", "2026-10-27T20:00:00Z")],
    active=[A("90", any=["grandma", "grandmother"])], absent=[A("90", none=["grandma", "grandmother"])],
    queries=[Q("how old is grandma turning", A("90"))]))
add(C("en-third_person-b2raj-01", "third_person", [
    ("coworker of mine raj is colorblind and i had no idea until he asked me what color a post-it was lol", "2026-11-30T17:10:00Z")],
    active=[A("raj", any=["colorblind", "color blind", "color-blind"])], absent=[A(any=["colorblind", "color blind", "color-blind"], none=["raj"])],
    queries=[Q("which coworker is colorblind", A("raj"))]))

# ---------------- multi_clause (10) ----------------
add(C("en-multi_clause-b2intro-01", "multi_clause", [
    ("hi! quick intro: im 29, live in minneapolis, work as a vet tech and have 2 rescue greyhounds lol", "2026-01-05T15:00:00Z")],
    active=[A("minneapolis"), A("vet tech"), A("greyhound")],
    queries=[Q("what pets do i have", A("greyhound")), Q("where do i live", A("minneapolis"))]))
add(C("en-multi_clause-b2pregnant-01", "multi_clause", [
    ("context for the meal plan: im pregnant (18 wks), totally off caffeine, and my OB wants me walking every day", "2026-02-16T13:00:00Z")],
    active=[A("pregnant"), A("caffeine"), A("walk")],
    queries=[Q("am i avoiding caffeine", A("caffeine"))]))
add(C("en-multi_clause-b2keto-01", "multi_clause", [
    ("for meal plans: im keto, i hate mushrooms, and i only have an air fryer and a microwave (no stove lol)", "2026-03-27T18:20:00Z")],
    active=[A("keto"), A("mushroom"), A("air fryer")],
    queries=[Q("what cooking equipment do i have", A("air fryer")), Q("foods i dislike", A("mushroom"))]))
add(C("en-multi_clause-b2phd-01", "multi_clause", [
    ("im a 2nd yr phd student at michigan studying marine bio, funded thru a TA which is lowkey a lot of grading", "2026-04-21T22:30:00Z")],
    active=[A("michigan"), A("marine")],
    queries=[Q("what do i study", A("marine"))]))
add(C("en-multi_clause-b2library-01", "multi_clause", [
    ("married w 3 kids, oldest just left for college, youngest is 4. i work part time at the public library", "2026-05-19T16:45:00Z")],
    active=[A("library"), A(any=["3 kids", "three kids", "3 children", "three children"])],
    queries=[Q("where do i work", A("library"))]))
add(C("en-multi_clause-b2lisbon-01", "multi_clause", [
    ("im going to lisbon in april, dont speak a word of portuguese, and im vegetarian — what should i eat there", "2026-01-28T21:00:00Z")],
    active=[A("lisbon"), A("vegetarian")],
    queries=[Q("where am i traveling", A("lisbon")), Q("what's my diet", A("vegetarian"))]))
add(C("en-multi_clause-b2overwatch-01", "multi_clause", [
    ("i main support in overwatch, play on ps5, and im usually on after 10pm est if u want to know when to suggest squad stuff", "2026-06-23T02:00:00Z")],
    active=[A("overwatch"), A("ps5")],
    queries=[Q("what console do i play on", A("ps5"))]))
add(C("en-multi_clause-b2raleigh-01", "multi_clause", [
    ("crazy month: we closed on a house in raleigh, adopted a corgi named waffles, and my wife started at duke health", "2026-08-24T23:15:00Z")],
    active=[A("raleigh"), A("waffles"), A("duke")],
    queries=[Q("what's my dog's name", A("waffles")), Q("where does my wife work", A("duke"))]))
add(C("en-multi_clause-b2cut-01", "multi_clause", [
    ("6'2, 210 lbs, trying to cut to 190 by summer, lifting 4x/wk. build me a macro plan", "2026-01-03T17:00:00Z")],
    active=[A("210"), A("190")],
    queries=[Q("what's my goal weight", A("190"))]))
add(C("en-multi_clause-b2backend-01", "multi_clause", [
    ("im a backend dev, mostly go and postgres, and im on call every other week which honestly sucks", "2026-10-09T00:20:00Z")],
    active=[A("postgres"), A(any=["on call", "on-call"])],
    queries=[Q("how often am i on call", A(any=["on call", "on-call"]))]))

# ---------------- chitchat (12) ----------------
chit = [
    ("b2lol", [("lol", "2026-01-12T20:00:00Z"), ("thanks!!", "2026-01-12T20:01:00Z")]),
    ("b2amazing", [("hahaha thats amazing 😂😂", "2026-02-09T03:14:00Z")]),
    ("b2shorter", [("make it shorter", "2026-03-14T11:00:00Z"), ("perfect ty", "2026-03-14T11:02:00Z")]),
    ("b2thumbs", [("👍", "2026-04-09T09:09:00Z")]),
    ("b2morning", [("good morning!", "2026-05-03T07:30:00Z"), ("hows it going", "2026-05-03T07:30:30Z")]),
    ("b2genius", [("ok wait thats actually genius", "2026-06-11T15:45:00Z")]),
    ("b2another", [("can u do another one", "2026-07-05T19:00:00Z"), ("lol ok one more", "2026-07-05T19:03:00Z")]),
    ("b2best", [("ur the best fr", "2026-08-01T22:22:00Z")]),
    ("b2nvm", [("hmm idk", "2026-09-08T14:00:00Z"), ("nvm", "2026-09-08T14:01:00Z")]),
    ("b2pray", [("🙏🙏🙏", "2026-10-11T10:10:00Z")]),
    ("b2lmao", [("lmaooo no way", "2026-11-05T01:00:00Z"), ("ok bye!", "2026-11-05T01:04:00Z")]),
    ("b2goodnight", [("thats it, thx, have a good night", "2026-12-02T23:40:00Z")]),
]
for t, msgs in chit:
    add(C(f"en-chitchat-{t}-01", "chitchat", msgs, nothing=True))

# ---------------- relative_date (9) ----------------
def rd(id, text, at, match, kind, hand, q, **kw):
    got = rel(at, kind, **kw)
    assert got == hand, (id, got, hand)
    add(C(id, "relative_date", [(text, at)], active=[match], dates=[D(match, hand)],
          queries=[Q(q, match)]))

rd("en-relative_date-b2wisdom-01", "got my wisdom teeth out yesterday, i look like a chipmunk 🐿️ what can i eat",
   "2026-03-10T15:20:00Z", A("wisdom"), "yesterday", "2026-03-09", "when did i get my wisdom teeth out")
rd("en-relative_date-b2bakery-01", "started a new job at a bakery last month and the 4am wake ups are rough, tips?",
   "2026-05-18T11:00:00Z", A("bakery"), "last_month", "2026-04-01", "when did i start at the bakery")
rd("en-relative_date-b2pepper-01", "adopted a rescue cat last friday!! named her pepper, she hides under the bed all day",
   "2026-06-09T18:00:00Z", A("pepper"), "last_weekday", "2026-06-05", "when did i adopt pepper", wd="fri")
rd("en-relative_date-b2vape-01", "quit vaping 3 days ago 💪 the cravings are no joke",
   "2026-08-27T20:30:00Z", A("vap"), "days_ago", "2026-08-24", "when did i quit vaping", n=3)
rd("en-relative_date-b2wrist-01", "broke my wrist two weeks ago skateboarding (yes at 38, i know) and typing one handed sucks",
   "2026-09-15T17:05:00Z", A("wrist"), "weeks_ago", "2026-09-01", "when did i break my wrist", n=2)
rd("en-relative_date-b2engaged-01", "got engaged last week!!! still not over it 💍💍",
   "2026-10-08T12:00:00Z", A("engaged"), "last_week", "2026-09-28", "when did i get engaged")
rd("en-relative_date-b2chemo-01", "i start chemo tomorrow, kind of scared ngl. what should i pack for the infusion",
   "2026-04-22T21:10:00Z", A("chemo"), "tomorrow", "2026-04-23", "when does my chemo start")
rd("en-relative_date-b2sober-01", "been sober since march 3rd, nearly 5 months!! ✨",
   "2026-07-30T04:00:00Z", A("sober"), "date", "2026-03-03", "since when have i been sober", month=3, day=3)
rd("en-relative_date-b2nashville-01", "moved to nashville 3 months ago and still dont know anyone, how do adults make friends",
   "2026-11-12T01:20:00Z", A("nashville"), "months_ago", "2026-08-01", "when did i move to nashville", n=3)

# ---------------- plan (6) ----------------
add(C("en-plan-b2seattle-01", "plan", [
    ("im in charlotte, been here 6 yrs, love it", "2026-01-21T18:00:00Z"),
    ("big news: we're moving to seattle in august for my wife's job 😬 any neighborhood recs?", "2026-05-04T20:00:00Z")],
    active=[A("charlotte"), A("seattle")],
    queries=[Q("where am i moving", A("seattle"))]))
add(C("en-plan-b2nursing-01", "plan", [
    ("planning to quit my job in january and go back to school for nursing. terrified but excited", "2026-09-29T02:40:00Z")],
    active=[A("nursing")],
    queries=[Q("what am i planning to study", A("nursing"))]))
add(C("en-plan-b2berlin-01", "plan", [
    ("signed up for the berlin marathon next september!! now i actually have to train lol", "2026-10-16T19:00:00Z")],
    active=[A("berlin")],
    queries=[Q("which marathon am i running", A("berlin"))]))
add(C("en-plan-b2pilot-01", "plan", [
    ("my big goal for 2027 is to finally get my private pilot's license ✈️ how many hours do u need", "2026-11-26T16:30:00Z")],
    active=[A("pilot")],
    queries=[Q("what are my goals for next year", A("pilot"))]))
add(C("en-plan-b2foodtruck-01", "plan", [
    ("im a line cook at a diner rn, 6 days a week", "2026-03-30T23:30:00Z"),
    ("thinking ill open my own food truck next spring, tacos obv. what permits do i need in texas", "2026-06-16T00:10:00Z")],
    active=[A("line cook"), A("food truck")],
    queries=[Q("what business do i want to start", A("food truck")), Q("what's my current job", A("line cook"))]))
add(C("en-plan-b2savannah-01", "plan", [
    ("we're getting married oct 10 next year in savannah 🥹 where do i even start", "2026-12-01T03:00:00Z")],
    active=[A("savannah")],
    queries=[Q("where is my wedding", A("savannah"))]))

# ---------------- reported_speech (3) ----------------
add(C("en-reported_speech-b2vitd-01", "reported_speech", [
    ("my doctor said my vitamin d is basically nonexistent lol, so supplements now i guess", "2026-02-05T16:00:00Z")],
    active=[A("vitamin d")],
    queries=[Q("what did my doctor say about my bloodwork", A("vitamin d"))]))
add(C("en-reported_speech-b2adhd-01", "reported_speech", [
    ("my therapist thinks i might have adhd and wants me to get formally evaluated. kinda explains a lot tbh", "2026-06-25T21:00:00Z")],
    active=[A("adhd")],
    queries=[Q("what did my therapist suggest", A("adhd"))]))
add(C("en-reported_speech-b2senior-01", "reported_speech", [
    ("my manager told me im getting promoted to senior in Q2!! 🥳", "2026-11-16T18:20:00Z")],
    active=[A("senior")],
    queries=[Q("what did my manager tell me", A("senior"))]))

# ---------------- pii (2) ----------------
add(C("en-pii-b2email-01", "pii", [
    ("new email for all the newsletter stuff: dana.okafor88@gmail.com", "2026-04-28T10:00:00Z")],
    active=[A("dana.okafor88@gmail.com")],
    queries=[Q("what's my email", A("dana.okafor88@gmail.com"))]))
add(C("en-pii-b2phone-01", "pii", [
    ("my cell is 415-555-0193 if u need it for the form", "2026-09-17T15:30:00Z")],
    active=[A("555-0193")],
    queries=[Q("what's my phone number", A("555-0193"))]))

if __name__ == "__main__":
    write("/tmp/blind2/en.jsonl", cases)
    print(len(cases))
