"""A program that plays a seat over the JSON-lines protocol (docs/AGENTS.md), for tests.

``python external_agent.py MODE [N]``: MODE ``greedy`` plays as ``sim.agents.greedy``
does (so exactly the compiled ``greedy``'s hands); the others draw from the stock and
throw their highest card (plain Python: a quick start), and misbehave at the N-th
decision (default 1): ``garbage`` (a line that is not JSON), ``illegal`` (throws a card
it does not hold), ``silent`` (never answers), ``die`` (exits), ``error`` (answers an
error), ``nohello`` (answers nothing to the greeting but exits); ``fine`` never does.
"""

import json
import os
import sys
import time


class Stock:
    """Draws from the stock, throws its highest card, never knocks."""

    def hello(self, rules, seat):
        pass

    def take(self, view):
        return False

    def discard(self, view):
        return max(c for c in view["hand"] if c != view["forbidden"])

    def knock(self, view, card):
        return "continue"


def main() -> None:
    mode = sys.argv[1]
    bad_at = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    if mode == "greedy":
        from sim.agents.greedy import Greedy
        from sim.agents.view import View
        from sim.rules import RuleSet

        agent = Greedy()
    else:
        agent = Stock()
    decisions = 0
    out = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        kind = request["type"]
        if kind == "bye":
            return
        if kind == "hello":
            if mode == "nohello":
                print("no hello for you", file=sys.stderr)
                sys.exit(3)
            rules = RuleSet.from_dict(request["rules"]) if mode == "greedy" else None
            agent.hello(rules=rules, seat=request["seat"])
            version = os.environ.get("AGENT_VERSION", "7")
            reply = {"type": "hello", "name": f"test agent ({mode})", "version": version}
        else:
            decisions += 1
            view = View.from_json(request["view"]) if mode == "greedy" else request["view"]
            if mode != "greedy" and decisions == bad_at:
                if mode == "garbage":
                    out.write("this is not json\n")
                    out.flush()
                    continue
                if mode == "silent":
                    time.sleep(3600)
                if mode == "die":
                    print("I give up", file=sys.stderr)
                    sys.exit(5)
                if mode == "error":
                    reply = {"error": "confused"}
                    out.write(json.dumps(reply) + "\n")
                    out.flush()
                    continue
            if kind == "take":
                reply = {"take": agent.take(view)}
            else:
                card = agent.discard(view)
                if mode == "illegal" and decisions >= bad_at:
                    card = next(c for c in range(52) if c not in view["hand"])
                reply = {"discard": card, "knock": agent.knock(view, card)}
        out.write(json.dumps(reply) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
