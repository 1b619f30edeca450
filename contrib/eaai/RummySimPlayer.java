package ginrummy;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.FileWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * RummySimPlayer - a GinRummyPlayer for the EAAI Gin Rummy challenge's framework that asks a
 * rummy-sim agent for each decision, so any rummy-sim strategy plays in that engine.
 *
 * <p>The agent is a separate process speaking rummy-sim's JSON-lines protocol (docs/AGENTS.md):
 * the command in the environment variable {@code RUMMY_AGENT} (default
 * {@code rummy agent mc --rules eaai}), split into words as a shell splits plain words and
 * quotes (no shell runs: no variables, globs or pipes; write {@code sh -c '...'} for those).
 * Each player starts one agent at its first hand and keeps it for its life (a game that seats
 * the player elsewhere greets it again with the new seat); a shutdown hook (or
 * {@link #close()}) says {@code bye} to it. The agent's standard error is this process's.
 *
 * <p>The framework's callbacks become the protocol's requests: {@code willDrawFaceUpCard} a
 * {@code take}, {@code getDiscard} a {@code discard} (whose knock answer
 * {@code getFinalMelds} then plays), {@code getFinalMelds} a {@code melds} request (of the
 * knocking hand, or, when the opponent knocked, of this hand so the engine lays off). The
 * other callbacks only keep the seat's view up to date: its hand, the pile, what each seat took
 * from the pile and still holds, what each discarded, the stock's size, the turn, the scores
 * and the game memory (hands dealt, the opponent's knocks and gins). The view holds only what
 * this seat was told: the opponent's stock draws stay unknown.
 *
 * <p>Cards travel as rummy-sim indices {@code suit * 13 + rank} (suits C D H S, rank 0 the ace).
 * The framework's own numbering (suits C H S D) is read from each Card's name, so the mapping
 * does not depend on it.
 *
 * <p>An agent that dies, answers an error or answers something illegal stops the game with an
 * {@link AgentError} naming the request and what came back. {@code RUMMY_AGENT_LOG}, when set,
 * names a file that gets every line sent ({@code > }) and received ({@code < }).
 */
public class RummySimPlayer implements GinRummyPlayer {

	/** The command run when RUMMY_AGENT is unset or blank. */
	public static final String DEFAULT_COMMAND = "rummy agent mc --rules eaai";

	/** The protocol version this adapter speaks. */
	public static final int PROTOCOL = 1;

	/** An agent that failed: the message names the request and what came back. */
	public static class AgentError extends RuntimeException {
		private static final long serialVersionUID = 1L;

		public AgentError(String message) {
			super(message);
		}
	}

	// --- cards: the framework's Card and rummy-sim's index ---------------------------------

	private static final String OUR_RANKS = "A23456789TJQK";
	private static final String OUR_SUITS = "CDHS";
	private static final int DECK = 52;
	/** Framework card id to rummy-sim index, and back. */
	private static final int[] OURS = new int[DECK];
	private static final Card[] THEIRS = new Card[DECK];

	static {
		for (int id = 0; id < DECK; id++) {
			Card card = Card.getCard(id);
			String name = card.toString(); // rank name then suit name, e.g. "TH"
			int rank = OUR_RANKS.indexOf(name.charAt(0));
			int suit = name.length() == 2 ? OUR_SUITS.indexOf(name.charAt(1)) : -1;
			if (rank < 0 || suit < 0)
				throw new IllegalStateException("RummySimPlayer: unknown card name " + name);
			OURS[id] = suit * 13 + rank;
			THEIRS[suit * 13 + rank] = card;
		}
	}

	private static int ours(Card card) {
		return OURS[card.getId()];
	}

	/** The card an answer names (a whole number 0..51), or -1 when it names none. */
	private static int cardIn(Object value) {
		return value instanceof Long && (Long) value >= 0 && (Long) value < DECK ? (int) (long) (Long) value : -1;
	}

	// --- the agent process ----------------------------------------------------------------

	private final String commandLine;
	private final List<String> command;
	private Process process;
	private BufferedWriter toAgent;
	// The agent's lines, read by a thread of their own so that a request waits for its
	// answer at most timeoutSeconds (RUMMY_AGENT_TIMEOUT; the greeting GREETING_SECONDS).
	private final BlockingQueue<String> fromAgent = new LinkedBlockingQueue<>();
	private static final String END = new String("the end of the agent's output"); // by identity
	private static final double GREETING_SECONDS = 120;
	private final double timeoutSeconds = seconds("RUMMY_AGENT_TIMEOUT", 10);
	private PrintWriter log;
	private String agentName = "?";
	private String agentVersion = "?";

	// --- the game so far (reset when a new game starts) -----------------------------------

	private int[] scores = {0, 0};
	private int gameHands;
	private int oppKnocks;
	private int oppGins;
	private boolean gameOver;
	private boolean handOpen; // dealt, not yet scored: a hand cut short ended its game
	private long handsDealt; // every hand this player was dealt: the source of the keys

	// --- this hand, as this seat saw it ---------------------------------------------------

	private int seat;
	private int dealer;
	private long key;
	private final List<Integer> hand = new ArrayList<>();
	private final List<Integer> pile = new ArrayList<>(); // bottom to top
	private final List<List<Integer>> taken = new ArrayList<>();
	private final List<List<Integer>> discarded = new ArrayList<>();
	private int stock;
	private int turn; // draws so far this hand
	private int upcard; // -1 until seen
	private int drawn; // -1 outside this seat's discard decision
	private boolean fromPile;
	private String knockAnswer; // this seat's knock answer for its turn in progress
	private int knocker; // -1 until someone shows final melds
	private List<List<Integer>> knockerMelds;

	/** A player whose agent is the command in RUMMY_AGENT (or {@link #DEFAULT_COMMAND}). */
	public RummySimPlayer() {
		this(System.getenv("RUMMY_AGENT"));
	}

	/** A player whose agent is {@code command} (null or blank: {@link #DEFAULT_COMMAND}). */
	public RummySimPlayer(String command) {
		String line = command == null || command.isBlank() ? DEFAULT_COMMAND : command;
		this.commandLine = line;
		this.command = words(line);
		if (this.command.isEmpty())
			throw new IllegalArgumentException("RUMMY_AGENT holds no command: " + line);
	}

	/** The agent's name and version, as its hello said ("?" before the first hand). */
	public String agentName() {
		return agentName + " " + agentVersion;
	}

	// --- GinRummyPlayer ---------------------------------------------------------------------

	@Override
	public void startGame(int playerNum, int startingPlayerNum, Card[] cards) {
		handsDealt++;
		if (process == null || playerNum != seat) { // one agent all along, told its seat
			seat = playerNum;
			if (process == null)
				start();
			hello();
		}
		if (gameOver || handOpen) { // a new game (after a full one, or one a forfeit ended)
			scores = new int[] {0, 0};
			gameHands = 0;
			oppKnocks = 0;
			oppGins = 0;
			gameOver = false;
		}
		handOpen = true;
		dealer = 1 - startingPlayerNum; // two players: the dealer is the one who does not start
		key = mix((handsDealt << 1) | seat);
		hand.clear();
		for (Card card : cards)
			hand.add(ours(card));
		pile.clear();
		taken.clear();
		discarded.clear();
		for (int s = 0; s < 2; s++) {
			taken.add(new ArrayList<>());
			discarded.add(new ArrayList<>());
		}
		stock = DECK - 2 * cards.length - 1; // the rest after both deals and the upcard
		turn = 0;
		upcard = -1;
		drawn = -1;
		fromPile = false;
		knockAnswer = "continue";
		knocker = -1;
		knockerMelds = null;
	}

	@Override
	public boolean willDrawFaceUpCard(Card card) {
		see(ours(card));
		String phase = turn == 0 ? "upcard" : "draw"; // no draw yet: the upcard's offers
		Map<String, Object> answer = ask("take", "{\"type\":\"take\",\"view\":" + view(phase) + "}");
		Object take = answer.get("take");
		if (!(take instanceof Boolean))
			throw illegal("take", answer, "\"take\" must be true or false");
		return (Boolean) take;
	}

	@Override
	public void reportDraw(int playerNum, Card drawnCard) {
		turn++;
		if (playerNum == seat) {
			int card = ours(drawnCard);
			fromPile = !pile.isEmpty() && top() == card;
			if (fromPile) {
				pile.remove(pile.size() - 1);
				taken.get(seat).add(card);
			} else
				stock--;
			hand.add(card);
			drawn = card;
		} else if (drawnCard != null) { // the opponent took the face-up card
			int card = ours(drawnCard);
			see(card);
			pile.remove(pile.size() - 1);
			taken.get(playerNum).add(card);
		} else
			stock--; // the opponent drew from the stock, unseen
	}

	@Override
	public Card getDiscard() {
		String request = "{\"type\":\"discard\",\"view\":" + view("discard") + "}";
		Map<String, Object> answer = ask("discard", request);
		int card = cardIn(answer.get("discard"));
		if (card < 0 || !hand.contains(card))
			throw illegal("discard", answer, "\"discard\" must be a card of the hand " + hand);
		if (fromPile && card == drawn)
			throw illegal("discard", answer, "it may not discard " + drawn + ", just taken from the pile");
		Object knock = answer.get("knock");
		if (!"continue".equals(knock) && !"knock".equals(knock))
			throw illegal("discard", answer, "\"knock\" must be \"continue\" or \"knock\" here"
					+ " (this engine has no big gin: serve the eaai rules)");
		knockAnswer = (String) knock;
		return THEIRS[card];
	}

	@Override
	public void reportDiscard(int playerNum, Card discardedCard) {
		int card = ours(discardedCard);
		pile.add(card);
		if (!discarded.get(playerNum).contains(card)) // a set: a card thrown again, taken back between
			discarded.get(playerNum).add(card);
		taken.get(playerNum).remove((Integer) card);
		if (playerNum == seat) {
			hand.remove((Integer) card);
			drawn = -1;
			fromPile = false;
		}
	}

	@Override
	public ArrayList<ArrayList<Card>> getFinalMelds() {
		boolean opponentKnocked = knocker >= 0 && knocker != seat;
		boolean knocking = !opponentKnocked && "knock".equals(knockAnswer);
		knockAnswer = "continue";
		if (!opponentKnocked && !knocking)
			return null;
		StringBuilder request = new StringBuilder("{\"type\":\"melds\",\"cards\":");
		cards(request, hand);
		Map<String, Object> answer = ask("melds", request.append('}').toString());
		Object melds = answer.get("melds");
		Object points = answer.get("points");
		if (!(melds instanceof List) || !(points instanceof Long))
			throw illegal("melds", answer, "it needs \"melds\" (lists of cards) and \"points\"");
		if (knocking && (Long) points > GinRummyUtil.MAX_DEADWOOD)
			throw illegal("melds", answer, "its discard answer knocked, with more than "
					+ GinRummyUtil.MAX_DEADWOOD + " deadwood");
		ArrayList<ArrayList<Card>> out = new ArrayList<>();
		List<Integer> left = new ArrayList<>(hand);
		for (Object meld : (List<?>) melds) {
			if (!(meld instanceof List))
				throw illegal("melds", answer, "each meld must be a list of cards");
			ArrayList<Card> cards = new ArrayList<>();
			for (Object value : (List<?>) meld) {
				int card = cardIn(value);
				if (card < 0 || !left.remove((Integer) card))
					throw illegal("melds", answer, "a meld holds a card not in the hand " + hand);
				cards.add(THEIRS[card]);
			}
			out.add(cards);
		}
		return out;
	}

	@Override
	public void reportFinalMelds(int playerNum, ArrayList<ArrayList<Card>> melds) {
		if (knocker >= 0)
			return; // the second report is the knocker's opponent's
		knocker = playerNum;
		knockerMelds = new ArrayList<>();
		for (ArrayList<Card> meld : melds) {
			List<Integer> cards = new ArrayList<>();
			for (Card card : meld)
				cards.add(ours(card));
			knockerMelds.add(cards);
		}
	}

	@Override
	public void reportScores(int[] scores) {
		this.scores = scores.clone();
		gameHands++;
		handOpen = false;
		for (int score : scores)
			if (score >= GinRummyUtil.GOAL_SCORE)
				gameOver = true;
	}

	@Override
	public void reportLayoff(int playerNum, Card layoffCard, ArrayList<Card> opponentMeld) {
		// The hand is over: nothing a later view holds.
	}

	@Override
	public void reportFinalHand(int playerNum, ArrayList<Card> finalHand) {
		if (playerNum != knocker || playerNum == seat)
			return;
		// The opponent knocked: with no deadwood (every card melded) that was gin.
		int melded = 0;
		for (List<Integer> meld : knockerMelds)
			melded += meld.size();
		if (melded == finalHand.size())
			oppGins++;
		else
			oppKnocks++;
	}

	// --- the view -------------------------------------------------------------------------

	/** This seat's view as the protocol's JSON object (docs/AGENTS.md "What an agent sees"). */
	private String view(String phase) {
		boolean discarding = phase.equals("discard");
		StringBuilder out = new StringBuilder(512);
		out.append("{\"seat\":").append(seat).append(",\"players\":2,\"hand\":");
		cards(out, hand);
		out.append(",\"pile\":");
		cards(out, pile);
		out.append(",\"taken\":");
		perSeat(out, taken);
		out.append(",\"discarded\":");
		perSeat(out, discarded);
		out.append(",\"stock\":").append(stock);
		out.append(",\"rebuilds\":0,\"rebuilt\":[]");
		out.append(",\"turn\":").append(turn);
		out.append(",\"phase\":\"").append(phase).append('"');
		out.append(",\"upcard\":").append(upcard);
		out.append(",\"drawn\":").append(discarding ? String.valueOf(drawn) : "null");
		out.append(",\"from_pile\":").append(discarding && fromPile);
		out.append(",\"dealer\":").append(dealer);
		out.append(",\"scores\":[").append(scores[0]).append(',').append(scores[1]).append(']');
		out.append(",\"knock_limit\":").append(GinRummyUtil.MAX_DEADWOOD);
		out.append(",\"forbidden\":").append(discarding && fromPile ? String.valueOf(drawn) : "null");
		out.append(",\"key\":\"").append(String.format("%016x", key)).append('"');
		out.append(",\"game_hands\":").append(gameHands);
		out.append(",\"opp_knocks\":").append(oppKnocks);
		out.append(",\"opp_gins\":").append(oppGins);
		return out.append('}').toString();
	}

	private static void cards(StringBuilder out, List<Integer> cards) {
		out.append('[');
		for (int i = 0; i < cards.size(); i++)
			out.append(i == 0 ? "" : ",").append(cards.get(i));
		out.append(']');
	}

	private static void perSeat(StringBuilder out, List<List<Integer>> lists) {
		out.append('[');
		cards(out, lists.get(0));
		out.append(',');
		cards(out, lists.get(1));
		out.append(']');
	}

	/** A face-up card offered or taken: the first one of a hand is its upcard. */
	private void see(int card) {
		if (upcard < 0) {
			upcard = card;
			pile.add(card);
		}
		if (pile.isEmpty() || top() != card) // the engine and this view disagree: a bug here
			throw new IllegalStateException("RummySimPlayer lost track of the pile " + pile
					+ ": the face-up card is " + card);
	}

	private int top() {
		return pile.get(pile.size() - 1);
	}

	/** Seconds from the environment variable {@code name} (unset or blank: {@code otherwise}). */
	private static double seconds(String name, double otherwise) {
		String text = System.getenv(name);
		if (text == null || text.isBlank())
			return otherwise;
		double value;
		try {
			value = Double.parseDouble(text.trim());
		} catch (NumberFormatException e) {
			value = Double.NaN;
		}
		if (!(value > 0 && value <= 3600))
			throw new AgentError(name + "=" + text + ": give seconds, above 0, at most 3600");
		return value;
	}

	/** SplitMix64's finalizer: distinct, well-mixed keys from a counter. */
	private static long mix(long z) {
		z += 0x9E3779B97F4A7C15L;
		z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
		z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
		return z ^ (z >>> 31);
	}

	// --- talking to the agent -----------------------------------------------------------------

	private void start() {
		try {
			process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
		} catch (IOException e) {
			throw new AgentError("RummySimPlayer could not start the agent " + command + ": "
					+ e.getMessage() + " (set RUMMY_AGENT to the command that serves a strategy)");
		}
		toAgent = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
		BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
		Thread reader = new Thread(() -> {
			try {
				for (String line; (line = lines.readLine()) != null;)
					fromAgent.add(line);
			} catch (IOException e) {
				// the agent's output closed: said as its end
			}
			fromAgent.add(END);
		}, "rummy-agent-reader");
		reader.setDaemon(true);
		reader.start();
		String logPath = System.getenv("RUMMY_AGENT_LOG");
		if (logPath != null && !logPath.isBlank()) {
			try {
				log = new PrintWriter(new FileWriter(logPath, StandardCharsets.UTF_8, true), true);
			} catch (IOException e) {
				throw new AgentError("RummySimPlayer could not open RUMMY_AGENT_LOG " + logPath + ": " + e.getMessage());
			}
		}
		Runtime.getRuntime().addShutdownHook(new Thread(this::close));
	}

	/** Greet the agent, telling it this player's seat (again when a new game moves it). */
	private void hello() {
		Map<String, Object> hello = ask("hello", "{\"type\":\"hello\",\"protocol\":" + PROTOCOL
				+ ",\"seat\":" + seat + ",\"players\":2,\"rules\":\"eaai\"}");
		if (!"hello".equals(hello.get("type")))
			throw illegal("hello", hello, "it must answer {\"type\":\"hello\",...}");
		agentName = String.valueOf(hello.get("name"));
		agentVersion = String.valueOf(hello.get("version"));
	}

	/** Say bye and let the agent go (idempotent; the shutdown hook calls it too). */
	public void close() {
		if (process == null || !process.isAlive())
			return;
		try {
			send("{\"type\":\"bye\"}");
			toAgent.close();
			if (!process.waitFor(5, TimeUnit.SECONDS))
				process.destroy();
		} catch (IOException | InterruptedException e) {
			process.destroy();
		}
	}

	private void send(String line) throws IOException {
		if (log != null)
			log.println("> " + line);
		toAgent.write(line);
		toAgent.write('\n');
		toAgent.flush();
	}

	/** Send one request and read its answer: a JSON object that is not an error. */
	private Map<String, Object> ask(String type, String request) {
		String line;
		double limit = "hello".equals(type) ? Math.max(timeoutSeconds, GREETING_SECONDS) : timeoutSeconds;
		try {
			send(request);
			line = fromAgent.poll((long) Math.ceil(limit * 1000), TimeUnit.MILLISECONDS);
		} catch (IOException e) {
			throw new AgentError(who() + " failed at the '" + type + "' request: " + e.getMessage() + exit());
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			throw new AgentError(who() + " was interrupted waiting for its '" + type + "' answer");
		}
		if (line == null) {
			process.destroyForcibly();
			throw new AgentError(who() + " did not answer the '" + type + "' request within "
					+ limit + " s (RUMMY_AGENT_TIMEOUT)");
		}
		if (line == END)
			line = null;
		if (log != null)
			log.println("< " + line);
		if (line == null)
			throw new AgentError(who() + " ended without answering the '" + type + "' request" + exit());
		Object answer;
		try {
			answer = new Json(line).document();
		} catch (IllegalArgumentException e) {
			throw new AgentError(who() + " answered the '" + type + "' request with " + shown(line)
					+ ", which is not JSON (" + e.getMessage() + ")");
		}
		if (!(answer instanceof Map))
			throw new AgentError(who() + " answered the '" + type + "' request with " + shown(line)
					+ ", which is not a JSON object");
		@SuppressWarnings("unchecked")
		Map<String, Object> object = (Map<String, Object>) answer;
		if (object.containsKey("error"))
			throw new AgentError(who() + " answered the '" + type + "' request with the error "
					+ shown(String.valueOf(object.get("error"))));
		return object;
	}

	private AgentError illegal(String type, Map<String, Object> answer, String why) {
		return new AgentError(who() + " answered the '" + type + "' request with " + answer + ": " + why);
	}

	private String who() {
		return "the agent '" + commandLine + "' (seat " + seat + ", hand " + handsDealt + ")";
	}

	private String exit() {
		try {
			if (process.waitFor(2, TimeUnit.SECONDS))
				return " (it exited with status " + process.exitValue() + ")";
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
		}
		return "";
	}

	private static String shown(String text) {
		String line = text.strip();
		return "'" + (line.length() <= 200 ? line : line.substring(0, 197) + "...") + "'";
	}

	/**
	 * The command's words, split as a POSIX shell splits plain words and quotes: blanks
	 * separate words, 'single quotes' keep everything, "double quotes" keep everything but
	 * a backslash before " \ $ or `, and a backslash outside quotes keeps the next character.
	 */
	static List<String> words(String line) {
		List<String> out = new ArrayList<>();
		StringBuilder word = new StringBuilder();
		boolean inWord = false;
		for (int i = 0; i < line.length(); i++) {
			char c = line.charAt(i);
			if (Character.isWhitespace(c)) {
				if (inWord)
					out.add(word.toString());
				word.setLength(0);
				inWord = false;
				continue;
			}
			inWord = true;
			if (c == '\\' && i + 1 < line.length())
				word.append(line.charAt(++i));
			else if (c == '\'' || c == '"') {
				int end = line.indexOf(c, i + 1);
				if (c == '"') { // find the closing quote that is not escaped
					end = i + 1;
					while (end < line.length() && line.charAt(end) != '"')
						end += line.charAt(end) == '\\' ? 2 : 1;
					if (end >= line.length())
						end = -1;
				}
				if (end < 0)
					throw new IllegalArgumentException("RUMMY_AGENT has an unclosed " + c + " quote: " + line);
				String quoted = line.substring(i + 1, end);
				word.append(c == '"' ? quoted.replaceAll("\\\\([\"\\\\$`])", "$1") : quoted);
				i = end;
			} else
				word.append(c);
		}
		if (inWord)
			out.add(word.toString());
		return out;
	}

	/**
	 * The JSON this protocol's answers use: objects, arrays, strings, whole numbers
	 * (as Long; other numbers as Double), true, false, null.
	 */
	static final class Json {
		private final String text;
		private int at;

		Json(String text) {
			this.text = text;
		}

		Object document() {
			Object value = value();
			blanks();
			if (at != text.length())
				throw fail("text after the value");
			return value;
		}

		private Object value() {
			blanks();
			if (at >= text.length())
				throw fail("the line ends early");
			char c = text.charAt(at);
			if (c == '{')
				return object();
			if (c == '[')
				return array();
			if (c == '"')
				return string();
			if (c == '-' || Character.isDigit(c))
				return number();
			for (String word : new String[] {"true", "false", "null"})
				if (text.startsWith(word, at)) {
					at += word.length();
					return word.equals("null") ? null : Boolean.valueOf(word);
				}
			throw fail("unexpected '" + c + "'");
		}

		private Map<String, Object> object() {
			Map<String, Object> out = new LinkedHashMap<>();
			at++;
			if (next() == '}') {
				at++;
				return out;
			}
			while (true) {
				if (next() != '"')
					throw fail("a key must be a string");
				String key = string();
				if (next() != ':')
					throw fail("':' expected");
				at++;
				out.put(key, value());
				char c = next();
				at++;
				if (c == '}')
					return out;
				if (c != ',')
					throw fail("',' or '}' expected");
			}
		}

		private List<Object> array() {
			List<Object> out = new ArrayList<>();
			at++;
			if (next() == ']') {
				at++;
				return out;
			}
			while (true) {
				out.add(value());
				char c = next();
				at++;
				if (c == ']')
					return out;
				if (c != ',')
					throw fail("',' or ']' expected");
			}
		}

		private String string() {
			StringBuilder out = new StringBuilder();
			at++;
			while (at < text.length()) {
				char c = text.charAt(at++);
				if (c == '"')
					return out.toString();
				if (c != '\\') {
					out.append(c);
					continue;
				}
				if (at >= text.length())
					break;
				char e = text.charAt(at++);
				switch (e) {
					case 'n': out.append('\n'); break;
					case 't': out.append('\t'); break;
					case 'r': out.append('\r'); break;
					case 'b': out.append('\b'); break;
					case 'f': out.append('\f'); break;
					case 'u':
						if (at + 4 > text.length())
							throw fail("a short \\u escape");
						out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
						at += 4;
						break;
					default: out.append(e); // " \ /
				}
			}
			throw fail("an unclosed string");
		}

		private Object number() {
			int start = at;
			while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0)
				at++;
			String digits = text.substring(start, at);
			try {
				return digits.matches("-?\\d+") ? (Object) Long.valueOf(digits) : (Object) Double.valueOf(digits);
			} catch (NumberFormatException e) {
				throw fail("a bad number " + digits);
			}
		}

		private char next() {
			blanks();
			if (at >= text.length())
				throw fail("the line ends early");
			return text.charAt(at);
		}

		private void blanks() {
			while (at < text.length() && Character.isWhitespace(text.charAt(at)))
				at++;
		}

		private IllegalArgumentException fail(String why) {
			return new IllegalArgumentException(why + " at character " + at);
		}
	}
}
