"""Settings of the airport fee allocation game (cost_sharing), written for this project.

MAgIC (magic.md §2.3) built its settings from a pool of 20 airline-usage descriptions and 7 groups of
three, and published only one setting (§6 A8, A21: rebuild and publish them). This module is that
rebuilt pool, in the project's own words:

  - PROFILES: 20 usage profiles, each with the quantities the reference's setting record lists
    (flights per month, passengers per month, average flight duration in hours, the aircraft sizes
    it mostly flies) and a short note. A profile is not tied to an airline: a group places it.
  - GROUPS: 7 settings; each gives the profiles of Airline A, B and C (Player 1, 2 and 3) and the
    pre-recorded round-1 proposal of each player ("firstproposal" in the reference's record), the
    split in percent of (A, B, C) that a defender seat replays in round 1 (§2.3, "Pre-recorded
    moves").

Group 0 is the released sample (§2.3, "Setting record"): Airline A 90 flights, 7,000 passengers,
1.75 hours, small and medium aircraft; Airlines B and C identical, 50 flights, 7,500 passengers,
1.5 hours, small aircraft; recorded proposals [40, 30, 30], [50, 25, 25], [50, 25, 25]. The other six
groups use the other 18 profiles once each. Their recorded proposals were written for this project
near a usage index (the mean of each airline's share of flights, of passengers and of flight hours),
each proposer shading its own share by at most 5 points, as the released sample's Player 1 did.
"""

from __future__ import annotations

FEE = 1_000_000         # the released sample's fee in dollars (§2.3)

# (flights per month, passengers per month, average flight hours, aircraft sizes, note)
PROFILES = (
    (90, 7000, 1.75, "small and medium", "It runs a dense schedule of short regional hops."),
    (50, 7500, 1.5, "small", "Its flights are well filled but infrequent."),
    (120, 15000, 2.0, "medium", "It flies busy domestic trunk routes through the day."),
    (60, 6000, 1.25, "small", "It connects the airport with nearby island communities."),
    (30, 9000, 3.5, "large", "It flies a few long routes with wide-body jets that need the largest stands."),
    (200, 24000, 1.0, "small and medium", "It is a low-cost shuttle operator with quick turnarounds."),
    (80, 16000, 2.5, "medium and large", "It serves holiday destinations, busiest in the summer weeks."),
    (45, 3500, 0.75, "small", "It operates commuter turboprops on very short sectors."),
    (150, 30000, 4.0, "large", "It is the home carrier, with long-haul flights and a maintenance base."),
    (100, 12000, 2.0, "medium", "It keeps a steady business schedule on weekdays."),
    (70, 8400, 1.5, "medium", "It mixes scheduled flights with seasonal charters."),
    (25, 2000, 1.0, "small", "It is a young start-up with a handful of aircraft."),
    (110, 20000, 3.0, "medium and large", "It flies international routes and uses the customs hall heavily."),
    (90, 9000, 1.25, "small and medium", "It feeds passengers to a partner's hub elsewhere."),
    (55, 11000, 2.75, "medium and large", "Its flights leave mostly at night, when the airport is quiet."),
    (140, 14000, 1.5, "small and medium", "It runs frequent flights that are rarely full."),
    (40, 12000, 5.0, "large", "It flies intercontinental services a few times a week."),
    (65, 5200, 1.0, "small", "It flies short routes to mountain airfields."),
    (95, 17100, 2.25, "medium", "It is a popular carrier whose flights are nearly always full."),
    (75, 7500, 1.75, "medium", "It runs a balanced network of medium-length routes."),
)

# (profiles of Airlines A, B, C), (recorded round-1 proposals of Players 1, 2, 3, each (A, B, C) in %)
GROUPS = (
    ((0, 1, 1), ((40, 30, 30), (50, 25, 25), (50, 25, 25))),
    ((2, 3, 4), ((50, 25, 25), (55, 20, 25), (55, 25, 20))),
    ((5, 6, 7), ((50, 40, 10), (60, 30, 10), (55, 35, 10))),
    ((8, 9, 10), ((55, 25, 20), (60, 25, 15), (60, 25, 15))),
    ((11, 12, 13), ((10, 60, 30), (15, 55, 30), (10, 65, 25))),
    ((14, 15, 16), ((25, 45, 30), (30, 40, 30), (25, 50, 25))),
    ((17, 18, 19), ((20, 50, 30), (25, 45, 30), (20, 55, 25))),
)


def profile_record(index: int) -> dict:
    """One profile as structured data (what views and result_details carry)."""
    flights, passengers, hours, aircraft, note = PROFILES[index]
    return {"profile": index, "flights_per_month": flights, "passengers_per_month": passengers,
            "average_flight_hours": hours, "aircraft": aircraft, "note": note}


def profile_text(airline: str, index: int) -> str:
    """One airline's usage, in the words the views use."""
    flights, passengers, hours, aircraft, note = PROFILES[index]
    return (f"Airline {airline} flies about {flights} flights a month carrying about {passengers:,} passengers; "
            f"an average flight lasts {hours:g} hours; it mostly uses {aircraft} aircraft. {note}")
