package ginrummy;

import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Test driver for contrib/eaai/RummySimPlayer.java: seeded games of Gin Rummy played the way
 * the EAAI framework documents its engine (the upcard offered to the starting player, then the
 * other; a hand ends on a knock or with two stock cards left; the engine lays off and scores,
 * gin 25, undercut 25, to 100), between the adapter and a simple scripted opponent. Every
 * answer of the adapter is checked: a held discard that is not the face-up card just taken,
 * valid melds within 10 deadwood when it knocks, valid melds of its own hand when the opponent
 * knocked. The first illegal answer prints "ILLEGAL ..." and exits 1.
 *
 * <p>Arguments: seed, games, a file for the truth log: before each of the adapter's decisions,
 * one JSON line with what its seat holds and sees (card names) and its game so far, to compare
 * with its views. One adapter plays every game, at seat (game number mod 2), as a match keeps
 * its players and swaps their seats. Prints one summary line.
 */
public class ScriptedTable {

	static final int HAND_SIZE = 10;

	// --- melds (the opponent's play and the checks of the adapter's answers) ---------------

	static int value(Card c) {
		return Math.min(c.getRank() + 1, 10);
	}

	static boolean isMeld(List<Card> meld) {
		if (meld.size() < 3)
			return false;
		boolean sameRank = true, sameSuit = true;
		for (Card c : meld) {
			sameRank &= c.getRank() == meld.get(0).getRank();
			sameSuit &= c.getSuit() == meld.get(0).getSuit();
		}
		if (sameRank)
			return meld.size() <= 4;
		if (!sameSuit)
			return false;
		List<Integer> ranks = new ArrayList<>();
		for (Card c : meld)
			ranks.add(c.getRank());
		Collections.sort(ranks);
		for (int i = 1; i < ranks.size(); i++)
			if (ranks.get(i) != ranks.get(i - 1) + 1)
				return false;
		return true;
	}

	static long mask(List<Card> cards) {
		long m = 0;
		for (Card c : cards)
			m |= 1L << c.getId();
		return m;
	}

	static List<Card> cards(long mask) {
		List<Card> out = new ArrayList<>();
		for (int id = 0; id < Card.NUM_CARDS; id++)
			if ((mask >>> id & 1) != 0)
				out.add(Card.getCard(id));
		return out;
	}

	/** Every meld within the cards of {@code hand}, as masks. */
	static List<Long> melds(long hand) {
		List<Long> out = new ArrayList<>();
		for (int rank = 0; rank < 13; rank++) {
			List<Card> same = new ArrayList<>();
			for (int suit = 0; suit < 4; suit++)
				if ((hand >>> Card.getCard(rank, suit).getId() & 1) != 0)
					same.add(Card.getCard(rank, suit));
			if (same.size() >= 3)
				out.add(mask(same));
			if (same.size() == 4)
				for (Card left : same)
					out.add(mask(same) & ~(1L << left.getId()));
		}
		for (int suit = 0; suit < 4; suit++)
			for (int low = 0; low < 13; low++) {
				long run = 0;
				for (int rank = low; rank < 13; rank++) {
					long bit = 1L << Card.getCard(rank, suit).getId();
					if ((hand & bit) == 0)
						break;
					run |= bit;
					if (rank - low >= 2)
						out.add(run);
				}
			}
		return out;
	}

	/** Least deadwood of a hand, and the melds that give it. */
	static final class Best {
		final int deadwood;
		final List<Long> melds;

		Best(int deadwood, List<Long> melds) {
			this.deadwood = deadwood;
			this.melds = melds;
		}
	}

	static Best best(long hand) {
		return best(hand, melds(hand), new HashMap<>());
	}

	private static Best best(long hand, List<Long> all, Map<Long, Best> memo) {
		if (hand == 0)
			return new Best(0, new ArrayList<>());
		Best known = memo.get(hand);
		if (known != null)
			return known;
		long low = Long.lowestOneBit(hand);
		Best rest = best(hand & ~low, all, memo); // the lowest card is deadwood ...
		Best out = new Best(rest.deadwood + value(Card.getCard(Long.numberOfTrailingZeros(low))), rest.melds);
		for (long meld : all) // ... or in a meld
			if ((meld & low) != 0 && (meld & hand) == meld) {
				Best with = best(hand & ~meld, all, memo);
				if (with.deadwood < out.deadwood) {
					List<Long> melds = new ArrayList<>(with.melds);
					melds.add(meld);
					out = new Best(with.deadwood, melds);
				}
			}
		memo.put(hand, out);
		return out;
	}

	static ArrayList<ArrayList<Card>> asLists(List<Long> melds) {
		ArrayList<ArrayList<Card>> out = new ArrayList<>();
		for (long meld : melds)
			out.add(new ArrayList<>(cards(meld)));
		return out;
	}

	// --- the scripted opponent: takes a face-up card that melds, discards to least deadwood,
	// --- knocks as soon as it may, but in every third hand waits for gin ----------------------

	static final class Opponent implements GinRummyPlayer {
		int me, hands;
		long hand;
		Card faceUp, drawn;
		boolean otherKnocked;

		public void startGame(int playerNum, int startingPlayerNum, Card[] cards) {
			me = playerNum;
			hand = mask(List.of(cards));
			otherKnocked = false;
			hands++;
		}

		public boolean willDrawFaceUpCard(Card card) {
			faceUp = card;
			long with = hand | 1L << card.getId();
			for (long meld : melds(with))
				if ((meld >>> card.getId() & 1) != 0)
					return true;
			return false;
		}

		public void reportDraw(int playerNum, Card drawnCard) {
			if (playerNum == me) {
				hand |= 1L << drawnCard.getId();
				drawn = drawnCard;
			}
		}

		public Card getDiscard() {
			Card choice = null;
			int least = Integer.MAX_VALUE;
			for (Card c : cards(hand)) {
				if (c == drawn && drawn == faceUp)
					continue;
				int deadwood = best(hand & ~(1L << c.getId())).deadwood;
				if (deadwood < least || deadwood == least && c.getRank() > choice.getRank()) {
					least = deadwood;
					choice = c;
				}
			}
			return choice;
		}

		public void reportDiscard(int playerNum, Card discardedCard) {
			if (playerNum == me)
				hand &= ~(1L << discardedCard.getId());
		}

		public ArrayList<ArrayList<Card>> getFinalMelds() {
			Best b = best(hand);
			int limit = hands % 3 == 0 ? 0 : GinRummyUtil.MAX_DEADWOOD;
			if (!otherKnocked && b.deadwood > limit)
				return null;
			return asLists(b.melds);
		}

		public void reportFinalMelds(int playerNum, ArrayList<ArrayList<Card>> melds) {
			if (playerNum != me)
				otherKnocked = true;
		}

		public void reportScores(int[] scores) {
		}

		public void reportLayoff(int playerNum, Card layoffCard, ArrayList<Card> opponentMeld) {
		}

		public void reportFinalHand(int playerNum, ArrayList<Card> hand) {
		}
	}

	// --- the table -------------------------------------------------------------------------

	final Random random;
	final PrintWriter truth;
	int adapterSeat;
	// this game and hand, for the truth log
	int dealer, gameHands, oppKnocks, oppGins;
	Card upcard;
	List<List<Card>> taken, discarded; // per player: taken from the pile and still held; thrown
	final Map<String, Integer> counts = new HashMap<>();

	ScriptedTable(long seed, PrintWriter truth) {
		this.random = new Random(seed);
		this.truth = truth;
	}

	void count(String what) {
		counts.merge(what, 1, Integer::sum);
	}

	static void illegal(String why) {
		System.out.println("ILLEGAL " + why);
		System.out.flush();
		System.exit(1);
	}

	static String names(List<Card> cards) {
		StringBuilder out = new StringBuilder("[");
		for (int i = 0; i < cards.size(); i++)
			out.append(i == 0 ? "\"" : ",\"").append(cards.get(i)).append('"');
		return out.append(']').toString();
	}

	/** What the adapter's seat holds and sees now, for the test to compare with its view. */
	void writeTruth(String call, List<List<Card>> hands, List<Card> pile, List<Card> stock, int[] scores) {
		int s = adapterSeat;
		truth.printf("{\"call\":\"%s\",\"seat\":%d,\"dealer\":%d,\"upcard\":\"%s\",\"hand\":%s,\"pile\":%s,"
				+ "\"stock\":%d,\"opp_hand\":%s,\"taken\":[%s,%s],\"discarded\":[%s,%s],\"scores\":[%d,%d],"
				+ "\"game_hands\":%d,\"opp_knocks\":%d,\"opp_gins\":%d}%n", call, s, dealer, upcard,
				names(hands.get(s)), names(pile), stock.size(), names(hands.get(1 - s)), names(taken.get(0)),
				names(taken.get(1)), names(discarded.get(0)), names(discarded.get(1)), scores[0], scores[1],
				gameHands, oppKnocks, oppGins);
	}

	/** Check melds shown by {@code player}: valid, disjoint, held; returns their deadwood. */
	static int checkMelds(ArrayList<ArrayList<Card>> melds, List<Card> hand, String who) {
		if (melds == null)
			illegal(who + " showed no melds");
		long left = mask(hand);
		for (ArrayList<Card> meld : melds) {
			long m = mask(meld);
			if (!isMeld(meld) || Long.bitCount(m) != meld.size() || (left & m) != m)
				illegal(who + " showed " + melds + ", not melds of its hand " + hand);
			left &= ~m;
		}
		int deadwood = 0;
		for (Card c : cards(left))
			deadwood += value(c);
		return deadwood;
	}

	/** One game to 100; returns the winner. */
	@SuppressWarnings("unchecked")
	int play(GinRummyPlayer[] players) {
		int[] scores = new int[2];
		int start = random.nextInt(2);
		gameHands = oppKnocks = oppGins = 0;
		while (scores[0] < GinRummyUtil.GOAL_SCORE && scores[1] < GinRummyUtil.GOAL_SCORE) {
			List<Card> stock = new ArrayList<>(List.of(Card.allCards));
			Collections.shuffle(stock, random);
			List<List<Card>> hands = List.of(new ArrayList<>(), new ArrayList<>());
			for (int i = 0; i < 2 * HAND_SIZE; i++)
				hands.get(i % 2).add(stock.remove(stock.size() - 1));
			for (int p = 0; p < 2; p++)
				players[p].startGame(p, start, hands.get(p).toArray(new Card[0]));
			List<Card> pile = new ArrayList<>();
			pile.add(stock.remove(stock.size() - 1));
			Card first = pile.get(0);
			upcard = first;
			dealer = 1 - start;
			taken = List.of(new ArrayList<>(), new ArrayList<>());
			discarded = List.of(new ArrayList<>(), new ArrayList<>());
			int offers = 0; // turns, the upcard's declined offers included
			int current = start;
			ArrayList<ArrayList<Card>> knockMelds = null;
			count("hands");
			while (stock.size() > 2) {
				Card faceUp = pile.get(pile.size() - 1);
				boolean upcardOffer = offers < 2 && faceUp == first;
				boolean take = false;
				if (!(offers == 2 && faceUp == first)) { // both declined: the starter draws blind
					if (current == adapterSeat)
						writeTruth("take", hands, pile, stock, scores);
					take = players[current].willDrawFaceUpCard(faceUp);
				}
				if (upcardOffer && !take) { // declined the upcard: the other player's offer
					offers++;
					current = 1 - current;
					continue;
				}
				Card card = take ? pile.remove(pile.size() - 1) : stock.remove(stock.size() - 1);
				if (current == adapterSeat)
					count(take ? (upcardOffer ? "upcard_takes" : "pile_takes") : "stock_draws");
				for (int p = 0; p < 2; p++)
					players[p].reportDraw(current, p == current || take ? card : null);
				hands.get(current).add(card);
				if (take)
					taken.get(current).add(card);
				if (current == adapterSeat)
					writeTruth("discard", hands, pile, stock, scores);
				Card discard = players[current].getDiscard();
				if (discard == null || !hands.get(current).contains(discard) || take && discard == card)
					illegal("player " + current + " discards " + discard + " from " + hands.get(current)
							+ (take ? " having taken " + card : ""));
				hands.get(current).remove(discard);
				if (taken.get(current).remove(discard))
					count("taken_thrown");
				if (discarded.get(current).contains(discard))
					count("thrown_again"); // thrown, taken back, thrown again
				discarded.get(current).add(discard);
				pile.add(discard);
				for (int p = 0; p < 2; p++)
					players[p].reportDiscard(current, discard);
				knockMelds = players[current].getFinalMelds();
				if (knockMelds != null)
					break;
				offers++;
				current = 1 - current;
			}
			if (knockMelds == null) {
				count("dead_hands");
			} else {
				int knocker = current, other = 1 - current;
				String who = knocker == adapterSeat ? "the adapter" : "the opponent";
				int knockDeadwood = checkMelds(knockMelds, hands.get(knocker), who + " (knocking)");
				if (knockDeadwood > GinRummyUtil.MAX_DEADWOOD)
					illegal(who + " knocks with " + knockDeadwood + " deadwood: " + knockMelds);
				if (knocker == adapterSeat)
					count(knockDeadwood == 0 ? "adapter_gins" : "adapter_knocks");
				else {
					count(knockDeadwood == 0 ? "opponent_gins" : "opponent_knocks");
					if (knockDeadwood == 0)
						oppGins++;
					else
						oppKnocks++;
				}
				for (int p = 0; p < 2; p++)
					players[p].reportFinalMelds(knocker, copy(knockMelds));
				ArrayList<ArrayList<Card>> otherMelds = players[other].getFinalMelds();
				String whoOther = other == adapterSeat ? "the adapter" : "the opponent";
				checkMelds(otherMelds, hands.get(other), whoOther + " (knocked against)");
				for (int p = 0; p < 2; p++)
					players[p].reportFinalMelds(other, copy(otherMelds));
				List<Card> unmelded = new ArrayList<>(hands.get(other));
				for (ArrayList<Card> meld : otherMelds)
					unmelded.removeAll(meld);
				if (knockDeadwood > 0) { // lay off, one card at a time, while any fits
					boolean laid = true;
					while (laid) {
						laid = false;
						for (Card c : unmelded) {
							for (ArrayList<Card> meld : knockMelds) {
								ArrayList<Card> longer = new ArrayList<>(meld);
								longer.add(c);
								if (isMeld(longer)) {
									for (int p = 0; p < 2; p++)
										players[p].reportLayoff(other, c, new ArrayList<>(meld));
									meld.add(c);
									unmelded.remove(c);
									count(other == adapterSeat ? "adapter_layoffs" : "opponent_layoffs");
									laid = true;
									break;
								}
							}
							if (laid)
								break;
						}
					}
				}
				int otherDeadwood = 0;
				for (Card c : unmelded)
					otherDeadwood += value(c);
				if (knockDeadwood == 0)
					scores[knocker] += GinRummyUtil.GIN_BONUS + otherDeadwood;
				else if (knockDeadwood < otherDeadwood)
					scores[knocker] += otherDeadwood - knockDeadwood;
				else
					scores[other] += GinRummyUtil.UNDERCUT_BONUS + knockDeadwood - otherDeadwood;
				start = 1 - start;
			}
			for (int p = 0; p < 2; p++)
				for (int q = 0; q < 2; q++)
					players[p].reportFinalHand(q, new ArrayList<>(hands.get(q)));
			for (int p = 0; p < 2; p++)
				players[p].reportScores(scores.clone());
			gameHands++;
		}
		return scores[0] >= GinRummyUtil.GOAL_SCORE ? 0 : 1;
	}

	static ArrayList<ArrayList<Card>> copy(ArrayList<ArrayList<Card>> melds) {
		ArrayList<ArrayList<Card>> out = new ArrayList<>();
		for (ArrayList<Card> meld : melds)
			out.add(new ArrayList<>(meld));
		return out;
	}

	public static void main(String[] args) throws IOException {
		long seed = Long.parseLong(args[0]);
		int games = Integer.parseInt(args[1]);
		try (PrintWriter truth = new PrintWriter(new FileWriter(args[2], StandardCharsets.UTF_8), true)) {
			ScriptedTable table = new ScriptedTable(seed, truth);
			RummySimPlayer adapter = new RummySimPlayer();
			Opponent opponent = new Opponent();
			for (int g = 0; g < games; g++) { // the same players all along, swapping seats
				table.adapterSeat = g % 2;
				GinRummyPlayer[] players = new GinRummyPlayer[2];
				players[table.adapterSeat] = adapter;
				players[1 - table.adapterSeat] = opponent;
				if (table.play(players) == table.adapterSeat)
					table.count("adapter_wins");
			}
			adapter.close();
			table.counts.put("games", games);
			System.out.println("SUMMARY " + new java.util.TreeMap<>(table.counts));
		}
	}
}
