"""Settings of the Chameleon game (engines/arena_engines/chameleon.pyx), written for this project.

MAgIC (magic.md §2.1) drew a topic and a secret word from a pool and published only one of its 20
competition settings (topic "Fruits", word "Grape", chameleon Player 3) and the code's small default
pool (§6 A21). Everything below is our own data; topic names are generic.

TOPICS: (topic, words) pairs, 24 topics of 8 words each. Words are unique across topics, and no
word is one of core.RANDOM_WORDS (the neutral words of random play).

SETTINGS: every (topic, word) pair, in TOPICS order. The game's "setting" parameter is an index into
it; the chance node draws a topic uniformly, then one of its words uniformly.

CUES: for every word, a few things a player might say about it; none names the word (nor a plural of
it) or another word of its topic. TOPIC_CUES: for every topic, clues that fit any of its words (what
a chameleon that knows nothing more can say). The house agent `chameleon_cues` (arena_server/house/
chameleon.py) gives its clues from here and compares the others' clues with them.

COMPETITIONS: 20 competition settings in the shape of MAgIC's setting record (§2.1 "Setting record"):
topic, word, the chameleon's seat and a first clue for each of Players 1-3 (the chameleon's fits the
topic only). A suite that follows MAgIC's protocol pins "setting" and "chameleon_seat" from a record
and lets defender seats say their recorded clue until the challenger's first turn (§2.1
"Pre-recorded defender moves", §6 A14); the engine itself plays live clues only. The paper chose its
20 by simulating 200 all-GPT-4 games (§3 "Setting calibration"); these are one word of each of the
first 20 topics, with the chameleon's seat rotating over the three seats, not calibrated.
"""

from __future__ import annotations

from typing import NamedTuple

TOPICS = (
    ("Fruits", ("Grape", "Mango", "Cherry", "Lemon", "Peach", "Pear", "Kiwi", "Coconut")),
    ("Vegetables", ("Carrot", "Potato", "Onion", "Broccoli", "Pumpkin", "Cucumber", "Spinach", "Mushroom")),
    ("Animals", ("Camel", "Rabbit", "Crocodile", "Wolf", "Squirrel", "Hippo", "Panda", "Hedgehog")),
    ("Birds", ("Owl", "Penguin", "Parrot", "Eagle", "Swan", "Flamingo", "Pigeon", "Ostrich")),
    ("Sea Life", ("Shark", "Octopus", "Jellyfish", "Crab", "Whale", "Starfish", "Seahorse", "Lobster")),
    ("Sports", ("Rugby", "Hockey", "Boxing", "Skiing", "Rowing", "Cricket", "Fencing", "Surfing")),
    ("Countries", ("Italy", "Egypt", "Mexico", "India", "Norway", "China", "Kenya", "New Zealand")),
    ("Musical Instruments", ("Piano", "Violin", "Drums", "Trumpet", "Flute", "Harp", "Guitar", "Accordion")),
    ("Jobs", ("Doctor", "Teacher", "Pilot", "Chef", "Firefighter", "Farmer", "Lawyer", "Plumber")),
    ("Weather", ("Rain", "Snow", "Fog", "Storm", "Rainbow", "Hail", "Tornado", "Drought")),
    ("Vehicles", ("Bicycle", "Helicopter", "Submarine", "Tractor", "Ambulance", "Canoe", "Tram", "Rocket")),
    ("Kitchen", ("Spoon", "Kettle", "Toaster", "Blender", "Frying Pan", "Whisk", "Oven", "Fridge")),
    ("Clothing", ("Scarf", "Jeans", "Gloves", "Boots", "Hat", "Sweater", "Pyjamas", "Raincoat")),
    ("Body Parts", ("Elbow", "Knee", "Nose", "Shoulder", "Tongue", "Thumb", "Ankle", "Eyebrow")),
    ("Buildings", ("Library", "Hospital", "Airport", "Museum", "Bakery", "Stadium", "Prison", "Castle")),
    ("Drinks", ("Coffee", "Tea", "Milk", "Lemonade", "Wine", "Beer", "Smoothie", "Hot Chocolate")),
    ("Desserts", ("Ice Cream", "Cheesecake", "Brownie", "Pancake", "Doughnut", "Pudding", "Cookie", "Jelly")),
    ("Film Genres", ("Horror", "Comedy", "Western", "Musical", "Cartoon", "Documentary", "Thriller", "Romance")),
    ("Celebrations", ("Birthday", "Wedding", "Halloween", "New Year", "Christmas", "Graduation", "Carnival",
                      "Anniversary")),
    ("School Subjects", ("Maths", "History", "Geography", "Chemistry", "Biology", "Physics", "Drama", "Art")),
    ("Tools", ("Hammer", "Saw", "Screwdriver", "Drill", "Ladder", "Shovel", "Wrench", "Tape Measure")),
    ("Hobbies", ("Knitting", "Gardening", "Fishing", "Painting", "Chess", "Photography", "Baking", "Camping")),
    ("Furniture", ("Sofa", "Bed", "Wardrobe", "Bookshelf", "Desk", "Armchair", "Mirror", "Lamp")),
    ("Space", ("Sun", "Moon", "Mars", "Comet", "Saturn", "Astronaut", "Telescope", "Galaxy")),
)

SETTINGS = tuple((topic, word) for topic, words in TOPICS for word in words)

CUES = {
    # Fruits
    "Grape": ("vine", "bunch", "raisin", "vineyard"),
    "Mango": ("tropical", "chutney", "lassi", "juicy"),
    "Cherry": ("stalk", "pit", "blossom", "cake topping"),
    "Lemon": ("sour", "zest", "yellow", "squeeze"),
    "Peach": ("fuzzy", "cobbler", "orchard", "velvet"),
    "Pear": ("crisp", "poached", "green", "conference"),
    "Kiwi": ("hairy", "emerald", "tangy", "brown skin"),
    "Coconut": ("palm", "shell", "milk", "island"),
    # Vegetables
    "Carrot": ("root", "crunchy", "snowman nose", "orange"),
    "Potato": ("chips", "mash", "tuber", "jacket"),
    "Onion": ("tears", "layers", "rings", "peel"),
    "Broccoli": ("florets", "tiny trees", "green", "steamed"),
    "Pumpkin": ("lantern", "autumn", "pie", "seeds"),
    "Cucumber": ("salad", "cool", "pickle", "sandwich"),
    "Spinach": ("leafy", "iron", "sailor", "green"),
    "Mushroom": ("fungus", "cap", "spores", "forest floor"),
    # Animals
    "Camel": ("hump", "desert", "caravan", "dromedary"),
    "Rabbit": ("burrow", "carrot", "hop", "long ears"),
    "Crocodile": ("jaws", "swamp", "scales", "reptile"),
    "Wolf": ("howl", "pack", "full moon", "fairy tale"),
    "Squirrel": ("acorn", "nuts", "bushy tail", "tree"),
    "Hippo": ("mud", "heavy", "Africa", "wallow"),
    "Panda": ("bamboo", "black and white", "China", "cuddly"),
    "Hedgehog": ("spines", "prickly", "curl", "hibernate"),
    # Birds
    "Owl": ("hoot", "nocturnal", "wise", "barn"),
    "Penguin": ("ice", "waddle", "tuxedo", "Antarctica"),
    "Parrot": ("talk", "colourful", "pirate", "mimic"),
    "Eagle": ("soar", "prey", "talons", "bald"),
    "Swan": ("lake", "graceful", "ballet", "white"),
    "Flamingo": ("pink", "one leg", "lagoon", "shrimp"),
    "Pigeon": ("city", "square", "messenger", "coo"),
    "Ostrich": ("flightless", "sand", "fast runner", "big egg"),
    # Sea Life
    "Shark": ("fin", "jaws", "teeth", "predator"),
    "Octopus": ("tentacles", "ink", "eight arms", "suckers"),
    "Jellyfish": ("sting", "see-through", "drifting", "blob"),
    "Crab": ("claws", "sideways", "shell", "beach"),
    "Whale": ("huge", "blowhole", "song", "mammal"),
    "Starfish": ("five arms", "rock pool", "regrow", "tide"),
    "Seahorse": ("curly tail", "upright", "coral", "pouch"),
    "Lobster": ("red", "claws", "expensive", "pot"),
    # Sports
    "Rugby": ("scrum", "tackle", "oval ball", "try"),
    "Hockey": ("stick", "puck", "ice", "goalie"),
    "Boxing": ("gloves", "ring", "punch", "knockout"),
    "Skiing": ("slope", "snow", "poles", "alpine"),
    "Rowing": ("oars", "boat", "crew", "regatta"),
    "Cricket": ("bat", "wicket", "bowler", "pitch"),
    "Fencing": ("sword", "mask", "lunge", "foil"),
    "Surfing": ("waves", "board", "beach", "wetsuit"),
    # Countries
    "Italy": ("pasta", "Rome", "boot", "gondola"),
    "Egypt": ("pyramids", "Nile", "pharaoh", "Cairo"),
    "Mexico": ("tacos", "sombrero", "Aztec", "mariachi"),
    "India": ("curry", "Taj Mahal", "Bollywood", "Delhi"),
    "Norway": ("fjords", "Vikings", "Oslo", "northern lights"),
    "China": ("great wall", "Beijing", "dragon", "dumplings"),
    "Kenya": ("safari", "Nairobi", "marathon", "savannah"),
    "New Zealand": ("Auckland", "hobbits", "Maori", "haka"),
    # Musical Instruments
    "Piano": ("keys", "pedals", "grand", "concert"),
    "Violin": ("bow", "strings", "chin", "orchestra"),
    "Drums": ("sticks", "beat", "cymbals", "rhythm"),
    "Trumpet": ("brass", "fanfare", "valves", "jazz"),
    "Flute": ("woodwind", "breathy", "whistle", "piccolo"),
    "Harp": ("angels", "plucked", "tall frame", "Irish"),
    "Guitar": ("strum", "chords", "acoustic", "rock"),
    "Accordion": ("squeeze", "bellows", "folk", "polka"),
    # Jobs
    "Doctor": ("stethoscope", "patient", "clinic", "prescription"),
    "Teacher": ("classroom", "homework", "blackboard", "pupils"),
    "Pilot": ("cockpit", "flight", "runway", "captain"),
    "Chef": ("recipe", "apron", "restaurant", "kitchen"),
    "Firefighter": ("hose", "siren", "flames", "rescue"),
    "Farmer": ("barn", "crops", "harvest", "tractor"),
    "Lawyer": ("court", "judge", "contract", "defence"),
    "Plumber": ("pipes", "leak", "sink", "boiler"),
    # Weather
    "Rain": ("umbrella", "drops", "wet", "puddle"),
    "Snow": ("flakes", "white", "sledge", "cold"),
    "Fog": ("mist", "grey", "visibility", "haze"),
    "Storm": ("gale", "lightning", "rough sea", "downpour"),
    "Rainbow": ("colours", "arc", "pot of gold", "after showers"),
    "Hail": ("ice balls", "pellets", "dents", "bouncing"),
    "Tornado": ("twister", "funnel", "spinning", "Kansas"),
    "Drought": ("dry", "thirst", "cracked earth", "no water"),
    # Vehicles
    "Bicycle": ("pedals", "two wheels", "helmet", "chain"),
    "Helicopter": ("rotor", "hover", "blades", "landing pad"),
    "Submarine": ("underwater", "periscope", "sonar", "yellow"),
    "Tractor": ("farm", "field", "plough", "mud"),
    "Ambulance": ("emergency", "siren", "paramedic", "stretcher"),
    "Canoe": ("paddle", "lake", "kayak", "rapids"),
    "Tram": ("tracks", "city streets", "overhead wires", "stops"),
    "Rocket": ("launch", "countdown", "fuel", "liftoff"),
    # Kitchen
    "Spoon": ("soup", "stir", "cutlery", "ladle"),
    "Kettle": ("boil", "whistle", "steam", "tea"),
    "Toaster": ("bread", "pop up", "crumbs", "browned"),
    "Blender": ("smoothie", "blades", "puree", "whizz"),
    "Frying Pan": ("sizzle", "eggs", "non-stick", "handle"),
    "Whisk": ("beat", "eggs", "wire", "fluffy"),
    "Oven": ("bake", "hot", "roast", "timer"),
    "Fridge": ("cold", "magnets", "freezer", "leftovers"),
    # Clothing
    "Scarf": ("neck", "wool", "wrap", "knitted"),
    "Jeans": ("denim", "blue", "pockets", "casual"),
    "Gloves": ("hands", "fingers", "mittens", "leather"),
    "Boots": ("feet", "laces", "mud", "hiking"),
    "Hat": ("head", "brim", "cap", "top"),
    "Sweater": ("wool", "jumper", "knit", "warm"),
    "Pyjamas": ("bedtime", "sleep", "nightwear", "comfy"),
    "Raincoat": ("waterproof", "hood", "yellow", "drizzle"),
    # Body Parts
    "Elbow": ("joint", "arm", "funny bone", "bend"),
    "Knee": ("leg", "bend", "cap", "scraped"),
    "Nose": ("smell", "sneeze", "nostrils", "face"),
    "Shoulder": ("shrug", "arm", "carry", "blade"),
    "Tongue": ("taste", "mouth", "lick", "speech"),
    "Thumb": ("finger", "hitchhike", "grip", "approval"),
    "Ankle": ("foot", "sprain", "sock", "joint"),
    "Eyebrow": ("face", "hair", "raised", "above the eye"),
    # Buildings
    "Library": ("books", "quiet", "borrow", "shelves"),
    "Hospital": ("nurses", "ward", "patients", "surgery"),
    "Airport": ("planes", "terminal", "luggage", "departures"),
    "Museum": ("exhibits", "history", "ancient", "gallery"),
    "Bakery": ("bread", "ovens", "pastries", "morning"),
    "Stadium": ("crowd", "match", "seats", "floodlights"),
    "Prison": ("cells", "bars", "guards", "inmates"),
    "Castle": ("towers", "moat", "king", "drawbridge"),
    # Drinks
    "Coffee": ("beans", "espresso", "caffeine", "barista"),
    "Tea": ("leaves", "herbal", "biscuit", "brew"),
    "Milk": ("cow", "white", "dairy", "cereal"),
    "Lemonade": ("fizzy", "citrus", "summer", "stand"),
    "Wine": ("red", "grapes", "cellar", "bottle"),
    "Beer": ("pub", "pint", "hops", "foam"),
    "Smoothie": ("blended", "fruit", "thick", "straw"),
    "Hot Chocolate": ("cocoa", "marshmallows", "warm", "mug"),
    # Desserts
    "Ice Cream": ("cone", "scoop", "frozen", "sundae"),
    "Cheesecake": ("creamy", "biscuit base", "slice", "New York"),
    "Brownie": ("chocolate", "gooey", "square", "fudge"),
    "Pancake": ("flip", "syrup", "stack", "batter"),
    "Doughnut": ("ring", "glazed", "hole", "sprinkles"),
    "Pudding": ("bowl", "custard", "steamed", "sticky toffee"),
    "Cookie": ("crumbs", "chip", "jar", "biscuit"),
    "Jelly": ("wobbly", "mould", "gelatine", "trifle"),
    # Film Genres
    "Horror": ("scary", "ghosts", "blood", "screams"),
    "Comedy": ("laughs", "jokes", "funny", "slapstick"),
    "Western": ("cowboys", "saloon", "desert", "sheriff"),
    "Musical": ("songs", "dancing", "Broadway", "singing"),
    "Cartoon": ("animated", "drawn", "kids", "characters"),
    "Documentary": ("real life", "nature", "narrator", "facts"),
    "Thriller": ("suspense", "tension", "twist", "chase"),
    "Romance": ("love", "kiss", "couple", "happy ending"),
    # Celebrations
    "Birthday": ("candles", "cake", "presents", "age"),
    "Wedding": ("bride", "rings", "vows", "dress"),
    "Halloween": ("costumes", "pumpkins", "trick or treat", "spooky"),
    "New Year": ("midnight", "fireworks", "countdown", "resolutions"),
    "Christmas": ("tree", "presents", "Santa", "December"),
    "Graduation": ("gown", "diploma", "cap", "ceremony"),
    "Carnival": ("parade", "costumes", "samba", "floats"),
    "Anniversary": ("years", "together", "couple", "milestone"),
    # School Subjects
    "Maths": ("numbers", "equations", "algebra", "sums"),
    "History": ("past", "dates", "wars", "kings"),
    "Geography": ("maps", "rivers", "continents", "atlas"),
    "Chemistry": ("lab", "elements", "reactions", "test tube"),
    "Biology": ("cells", "life", "organisms", "dissection"),
    "Physics": ("gravity", "forces", "energy", "Newton"),
    "Drama": ("acting", "stage", "plays", "rehearsal"),
    "Art": ("painting", "drawing", "canvas", "sketch"),
    # Tools
    "Hammer": ("nails", "bang", "hit", "carpenter"),
    "Saw": ("cut", "wood", "teeth", "timber"),
    "Screwdriver": ("screws", "twist", "Phillips", "flathead"),
    "Drill": ("holes", "bit", "power", "spin"),
    "Ladder": ("rungs", "climb", "steps", "up high"),
    "Shovel": ("dig", "spade", "earth", "hole"),
    "Wrench": ("bolts", "nuts", "grip", "spanner"),
    "Tape Measure": ("length", "centimetres", "retractable", "inches"),
    # Hobbies
    "Knitting": ("needles", "wool", "yarn", "scarf"),
    "Gardening": ("plants", "soil", "weeding", "flowers"),
    "Fishing": ("rod", "bait", "hook", "catch"),
    "Painting": ("brush", "easel", "canvas", "watercolour"),
    "Chess": ("board", "pieces", "checkmate", "king"),
    "Photography": ("camera", "lens", "shutter", "pictures"),
    "Baking": ("flour", "oven", "cakes", "dough"),
    "Camping": ("tent", "campfire", "outdoors", "sleeping bag"),
    # Furniture
    "Sofa": ("couch", "cushions", "living room", "sit"),
    "Bed": ("sleep", "mattress", "pillow", "sheets"),
    "Wardrobe": ("clothes", "hangers", "doors", "Narnia"),
    "Bookshelf": ("books", "shelves", "titles", "reading"),
    "Desk": ("office", "drawers", "work", "computer"),
    "Armchair": ("comfortable", "one person", "reading", "fireside"),
    "Mirror": ("reflection", "glass", "vanity", "look"),
    "Lamp": ("bulb", "shade", "bedside", "switch"),
    # Space
    "Sun": ("star", "hot", "daytime", "solar"),
    "Moon": ("crescent", "night", "tides", "craters"),
    "Mars": ("red planet", "rover", "dusty", "fourth"),
    "Comet": ("tail", "ice", "orbit", "Halley"),
    "Saturn": ("rings", "gas giant", "sixth", "Titan"),
    "Astronaut": ("spacesuit", "NASA", "floating", "mission"),
    "Telescope": ("lens", "stargazing", "observatory", "zoom"),
    "Galaxy": ("Milky Way", "stars", "spiral", "billions"),
}

TOPIC_CUES = {
    "Fruits": ("fresh", "sweet", "healthy snack", "market stall"),
    "Vegetables": ("healthy", "side dish", "grown in soil", "five a day"),
    "Animals": ("wild", "zoo", "habitat", "nature documentary"),
    "Birds": ("wings", "feathers", "nest", "beak"),
    "Sea Life": ("water", "salty", "aquarium", "underwater"),
    "Sports": ("team", "competition", "training", "fitness"),
    "Countries": ("travel", "passport", "flag", "capital city"),
    "Musical Instruments": ("sound", "melody", "practice", "band"),
    "Jobs": ("career", "salary", "uniform", "qualifications"),
    "Weather": ("forecast", "sky", "season", "outside"),
    "Vehicles": ("transport", "engine", "journey", "passengers"),
    "Kitchen": ("cooking", "household", "drawer", "meals"),
    "Clothing": ("wear", "fashion", "size", "laundry"),
    "Body Parts": ("human", "anatomy", "skin", "health"),
    "Buildings": ("town", "visit", "architecture", "public"),
    "Drinks": ("glass", "refreshing", "sip", "cup"),
    "Desserts": ("sweet", "sugar", "treat", "after dinner"),
    "Film Genres": ("cinema", "popcorn", "screen", "actors"),
    "Celebrations": ("party", "guests", "family", "tradition"),
    "School Subjects": ("lessons", "exams", "textbook", "curriculum"),
    "Tools": ("workshop", "DIY", "handy", "toolbox"),
    "Hobbies": ("free time", "relaxing", "weekends", "passion"),
    "Furniture": ("home", "room", "wooden", "interior"),
    "Space": ("universe", "science", "far away", "orbiting"),
}


class Competition(NamedTuple):
    """A competition setting in the shape of MAgIC's record: the topic and secret word, the chameleon's
    seat (0 = Player 1) and the first clue recorded for each seat (Player 1 first)."""

    topic: str
    word: str
    chameleon: int
    first_clues: tuple[str, str, str]


COMPETITIONS = (
    Competition("Fruits", "Grape", 2, ("It grows on a vine.", "Dried, it turns into a raisin.",
                                       "It makes a good snack.")),
    Competition("Vegetables", "Onion", 0, ("You often find it in soups.", "Cutting it can make you cry.",
                                           "It comes in layers.")),
    Competition("Animals", "Camel", 1, ("It can go a long time without water.", "It is quite a big animal.",
                                        "You might ride one across the sand.")),
    Competition("Birds", "Penguin", 2, ("It cannot fly but swims very well.", "It looks like it wears a tuxedo.",
                                        "It has a beak.")),
    Competition("Sea Life", "Octopus", 0, ("It lives in the water.", "It squirts ink when scared.",
                                           "It has a lot of arms.")),
    Competition("Sports", "Cricket", 1, ("It is played with a bat.", "It is a team sport.",
                                         "A match can last several days.")),
    Competition("Countries", "Egypt", 2, ("It is famous for its pyramids.", "The Nile runs through it.",
                                          "Lots of tourists visit it.")),
    Competition("Musical Instruments", "Violin", 0, ("It is popular in many bands.", "You play it with a bow.",
                                                     "You tuck it under your chin.")),
    Competition("Jobs", "Pilot", 1, ("They sit in a cockpit.", "It takes years of training.",
                                     "They know every runway by heart.")),
    Competition("Weather", "Fog", 2, ("It makes it hard to see far.", "It is grey and damp.",
                                      "It changes with the season.")),
    Competition("Vehicles", "Submarine", 0, ("It takes you from one place to another.", "It travels under the sea.",
                                             "It has a periscope.")),
    Competition("Kitchen", "Toaster", 1, ("Bread goes in and pops out brown.", "You find it in most homes.",
                                          "It leaves crumbs everywhere.")),
    Competition("Clothing", "Gloves", 2, ("You wear them on your hands.", "They keep your fingers warm.",
                                          "People wear them in the cold.")),
    Competition("Body Parts", "Elbow", 0, ("Everyone has one.", "It is the joint in the middle of your arm.",
                                           "Knocking it is not funny at all.")),
    Competition("Buildings", "Library", 1, ("You can borrow books there.", "You might visit it in town.",
                                            "You are asked to keep quiet inside.")),
    Competition("Drinks", "Coffee", 2, ("Many people need it in the morning.", "It is made from roasted beans.",
                                        "It is served in a cup.")),
    Competition("Desserts", "Pancake", 0, ("It is a sweet treat.", "You flip it in a pan.",
                                           "It is great with syrup.")),
    Competition("Film Genres", "Western", 1, ("Cowboys and sheriffs star in it.", "You watch it on a big screen.",
                                              "Expect a saloon and a duel at noon.")),
    Competition("Celebrations", "Wedding", 2, ("There is usually a bride.", "Rings are exchanged.",
                                               "Family and friends gather for it.")),
    Competition("School Subjects", "Chemistry", 0, ("It is taught in schools.", "You mix things in a lab.",
                                                    "The periodic table is at its heart.")),
)


def topic_words(topic: str) -> tuple[str, ...]:
    """The words of `topic`; KeyError for a topic of no setting."""
    for name, words in TOPICS:
        if name == topic:
            return words
    raise KeyError(f"no topic {topic!r}")


def setting_index(topic: str, word: str) -> int:
    """The index in SETTINGS (the "setting" parameter) of `word` under `topic`."""
    try:
        return SETTINGS.index((topic, word))
    except ValueError:
        raise KeyError(f"no setting with topic {topic!r} and word {word!r}") from None
