"""Synthetic memories and queries for the server benchmark (no dataset needed).

Texts are short first-person statements drawn from a Zipf-distributed vocabulary of common
English words and generated names, so posting lists have realistic skew; a quarter carry a
Chinese clause. Deterministic for a given seed."""
import random

_COMMON = ("tea coffee hiking violin daughter son marathon allergy peanuts nurse hospital cat "
           "dog garden book novel piano travel sushi work meeting project deadline birthday "
           "party music jazz running swimming doctor school exam movie friend weekend car "
           "train flight hotel beach mountain lake river city village bakery bread cheese wine "
           "beer soup salad pasta rice noodles chicken fish vegetables fruit apple orange "
           "banana lemon sugar salt pepper spicy sweet bitter sour morning evening night "
           "monday tuesday friday summer winter spring autumn rain snow sun wind cold warm "
           "office manager colleague team client report budget salary promotion interview "
           "laptop phone camera photo video game chess football tennis basketball yoga gym "
           "diet sleep dream headache fever medicine dentist glasses shoes jacket dress gift "
           "wedding anniversary holiday vacation museum concert theatre painting drawing "
           "guitar drums singing dancing cooking baking reading writing poetry history "
           "science math physics chemistry biology language french spanish german chinese "
           "japanese korean italian brother sister mother father grandmother grandfather "
           "uncle aunt cousin neighbor teacher student baby puppy kitten bird fishbowl").split()
_ZH = ["我喜欢喝绿茶", "周末去爬山", "女儿在学小提琴", "对花生过敏", "在医院当护士",
       "下个月去日本旅行", "最近在读小说", "养了一只猫", "每天早上跑步", "正在准备考试"]
_VERBS = ["likes", "loves", "hates", "mentioned", "bought", "visited", "planned", "started",
          "finished", "recommended", "forgot", "remembered"]


class Corpus:
    def __init__(self, seed=1, names=2000):
        self.rng = random.Random(seed)
        syll = ["ka", "to", "mi", "ra", "ne", "so", "lu", "vi", "de", "po", "an", "el"]
        made = set()
        while len(made) < names:
            made.add("".join(self.rng.choice(syll) for _ in range(self.rng.randint(2, 4))).title())
        self.vocab = _COMMON + sorted(made)
        # Zipf weights: the i-th word is drawn with probability ∝ 1 / (i + 1).
        self.weights = [1.0 / (i + 1) for i in range(len(self.vocab))]
        self.rng.shuffle(self.vocab)

    def words(self, n):
        return self.rng.choices(self.vocab, weights=self.weights, k=n)

    def memory(self):
        w = self.words(6)
        text = f"I {self.rng.choice(_VERBS)} the {w[0]} and {w[1]} with {w[2]}; {w[3]} {w[4]} {w[5]}."
        if self.rng.random() < 0.25:
            text += "，" + self.rng.choice(_ZH)
        return text

    def query(self):
        return " ".join(self.words(3)) + "?"
