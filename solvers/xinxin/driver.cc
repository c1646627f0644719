// A line-protocol driver for xinxin, Nathan Sturtevant's Hearts program.
//
// This file is ours; xinxin's sources (GPL v3, github.com/nathansttt/hearts)
// are NOT part of this repository. `make xinxin XINXIN_SRC=/path/to/hearts`
// compiles this file together with the sources in the folder the user names,
// into build/xinxin/xinxin_driver (git-ignored). The binary links GPL code:
// do not distribute it with the package.
//
// The protocol (one command per line on stdin, one reply line on stdout;
// cards in our notation: rank 23456789TJQKA then suit CDHS, e.g. QS, TH):
//
//   (on start)                       -> "xinxin-driver 1"
//   config <sims> <worlds> <c> <eps> -> "ok"  search setting for the next `new`:
//                                        <sims> simulations per decision split
//                                        over <worlds> sampled worlds (UCT runs
//                                        <sims>/<worlds> per world), UCT
//                                        constant <c>, playout epsilon <eps>
//   new <seed> <pass> <h0> <h1> <h2> <h3>
//                                     -> "ok"  a new deal: <pass> is hold, left,
//                                        across or right; <hN> the 13 cards of
//                                        seat N, comma-separated; <seed> (an
//                                        unsigned 32-bit int) seeds every
//                                        random stream the driver can reach
//   play <seat> <card>               -> "ok"  a pass or a play by <seat>
//   legal                            -> "legal <seat> <cards>"  (the seat to move)
//   move                             -> "move <card> legal <cards>"  xinxin's
//                                        choice for the seat to move (not
//                                        applied: send `play` for it)
//   points                           -> "points <p0> <p1> <p2> <p3>"  (deal over)
//   quit                             -> exits
//
// A bad command gets "error <what is wrong>" and changes nothing. xinxin's own
// printf output is sent to stderr so that stdout carries only the protocol.

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "Hearts.h"
#include "UCT.h"
#include "iiMonteCarlo.h"

namespace {

constexpr int kPlayers = 4;
constexpr int kHandSize = 13;
const char kRanks[] = "23456789TJQKA";  // our rank order, low to high
const char kSuits[] = "CDHS";           // our suit order
// xinxin's suit of each of our suits (xinxin: SPADES 0, DIAMONDS 1, CLUBS 2, HEARTS 3).
const int kXinxinSuit[4] = {hearts::CLUBS, hearts::DIAMONDS, hearts::HEARTS, hearts::SPADES};

// The rules of OpenSpiel's `hearts` with its default parameters, which our
// deck="classic" equals: Q of spades 13, 2C leads, no points on the first
// trick, hearts must be broken and the Q of spades breaks them, pass 3 cards.
constexpr int kRules = hearts::kQueenPenalty | hearts::kDoPassCards |
                       hearts::kNoHeartsFirstTrick | hearts::kNoQueenFirstTrick |
                       hearts::kLead2Clubs | hearts::kQueenBreaksHearts |
                       hearts::kMustBreakHearts;

FILE* g_out = nullptr;  // the protocol stream (the original stdout)

void Reply(const std::string& line) {
  std::fputs(line.c_str(), g_out);
  std::fputc('\n', g_out);
  std::fflush(g_out);
}

// Our card id (rank * 4 + suit) <-> xinxin's card.
hearts::card ToXinxin(int id) {
  int rank = id / 4, suit = id % 4;
  return hearts::Deck::getcard(kXinxinSuit[suit], 12 - rank);
}

int FromXinxin(hearts::card c) {
  int xsuit = hearts::Deck::getsuit(c);
  int suit = 0;
  while (kXinxinSuit[suit] != xsuit) ++suit;
  return (12 - hearts::Deck::getrank(c)) * 4 + suit;
}

std::string CardName(int id) { return std::string{kRanks[id / 4], kSuits[id % 4]}; }

bool ParseCard(const std::string& text, int* id) {
  if (text.size() != 2) return false;
  const char* r = std::strchr(kRanks, text[0]);
  const char* s = std::strchr(kSuits, text[1]);
  if (text[0] == '\0' || text[1] == '\0' || r == nullptr || s == nullptr) return false;
  *id = static_cast<int>(r - kRanks) * 4 + static_cast<int>(s - kSuits);
  return true;
}

bool ParseUInt(const std::string& text, unsigned long max, unsigned long* out) {
  if (text.empty() || text.size() > 20) return false;
  for (char ch : text)
    if (ch < '0' || ch > '9') return false;
  unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (v > max) return false;
  *out = static_cast<unsigned long>(v);
  return true;
}

bool ParseReal(const std::string& text, double lo, double hi, double* out) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= lo && v <= hi)) return false;
  *out = v;
  return true;
}

// UCT and the world sampler seed their generators from the clock; these
// subclasses reach the (protected) generators to seed them from ours.
class SeededUCT : public hearts::UCT {
 public:
  SeededUCT(int runs, double c) : hearts::UCT(runs, c) {}
  void Seed(uint32_t s) {
    hearts::UCT::rand.srand(s);
    hearts::Algorithm::rand.srand(s ^ 0x5bd1e995u);
  }
};

class SeededMonteCarlo : public hearts::iiMonteCarlo {
 public:
  SeededMonteCarlo(hearts::Algorithm* a, int worlds) : hearts::iiMonteCarlo(a, worlds) {}
  void Seed(uint32_t s) { hearts::Algorithm::rand.srand(s); }
};

class SeededPlayer : public hearts::SafeSimpleHeartsPlayer {
 public:
  explicit SeededPlayer(hearts::Algorithm* a) : hearts::SafeSimpleHeartsPlayer(a) {}
  void Seed(uint32_t s) { rand.srand(s); }
};

struct Config {
  int simulations = 10000;
  int worlds = 30;
  double c = 0.4;
  double epsilon = 0.1;
};

// One deal: xinxin's game state and, per seat, the player with its search.
class Deal {
 public:
  Deal(const Config& cfg, uint32_t seed, int pass_dir,
       std::vector<std::vector<hearts::card>>& hands) {
    std::srand(seed);
    srandom(seed);  // xinxin's evaluation noise uses random()
    state_ = std::make_unique<hearts::HeartsGameState>(static_cast<int>(seed & 0x7fffffff));
    state_->setRules(kRules);
    state_->deletePlayers();
    for (int seat = 0; seat < kPlayers; ++seat) {
      uint32_t s = seed * 2654435761u + 40503u * (seat + 1);
      playouts_.push_back(std::make_unique<hearts::HeartsPlayout>());
      ucts_.push_back(std::make_unique<SeededUCT>(cfg.simulations / cfg.worlds, cfg.c));
      ucts_.back()->setPlayoutModule(playouts_.back().get());
      if (cfg.epsilon > 0) ucts_.back()->setEpsilonPlayout(cfg.epsilon);
      ucts_.back()->Seed(s);
      mcs_.push_back(std::make_unique<SeededMonteCarlo>(ucts_.back().get(), cfg.worlds));
      mcs_.back()->setUseThreads(true);
      mcs_.back()->Seed(s + 1);
      auto* player = new SeededPlayer(mcs_.back().get());  // owned by the state
      player->setModelLevel(2);
      player->Seed(s + 2);
      state_->addPlayer(player);
      player->setGameState(state_.get());
    }
    // The order matters: setting the cards resets the pass direction.
    state_->Reset();
    state_->SetInitialCards(hands);
    state_->setPassDir(pass_dir);
    state_->setFirstPlayer(0);
  }

  hearts::HeartsGameState* state() { return state_.get(); }

  // Legal cards of the seat to move, as sorted ids of ours.
  std::vector<int> Legal() {
    std::vector<int> out;
    hearts::Move* all = state_->getAllMoves();
    for (hearts::Move* m = all; m != nullptr; m = m->next)
      out.push_back(FromXinxin(static_cast<hearts::CardMove*>(m)->c));
    state_->freeMove(all);
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  // Declared before state_ so that they outlive it (the state's destructor
  // deletes the players, which point at these).
  std::vector<std::unique_ptr<hearts::HeartsPlayout>> playouts_;
  std::vector<std::unique_ptr<SeededUCT>> ucts_;
  std::vector<std::unique_ptr<SeededMonteCarlo>> mcs_;
  std::unique_ptr<hearts::HeartsGameState> state_;
};

std::string Cards(const std::vector<int>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) out += (i ? "," : "") + CardName(ids[i]);
  return out;
}

std::vector<std::string> Split(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

std::string DoConfig(const std::vector<std::string>& w, Config* cfg) {
  if (w.size() != 5) return "error config takes 4 values: <sims> <worlds> <c> <eps>";
  unsigned long sims, worlds;
  double c, eps;
  if (!ParseUInt(w[2], 1000, &worlds) || worlds < 1)
    return "error config: worlds=" + w[2] + " is not an int in [1, 1000]";
  if (!ParseUInt(w[1], 100000000, &sims) || sims < worlds)
    return "error config: sims=" + w[1] + " is not an int in [worlds, 100000000]";
  if (!ParseReal(w[3], 0.0, 100.0, &c)) return "error config: c=" + w[3] + " is not in [0, 100]";
  if (!ParseReal(w[4], 0.0, 1.0, &eps)) return "error config: eps=" + w[4] + " is not in [0, 1]";
  cfg->simulations = static_cast<int>(sims);
  cfg->worlds = static_cast<int>(worlds);
  cfg->c = c;
  cfg->epsilon = eps;
  return "ok";
}

std::string DoNew(const std::vector<std::string>& w, const Config& cfg,
                  std::unique_ptr<Deal>* deal) {
  if (w.size() != 7) return "error new takes: <seed> <pass> <hand0> <hand1> <hand2> <hand3>";
  unsigned long seed;
  if (!ParseUInt(w[1], 0xffffffffUL, &seed))
    return "error new: seed=" + w[1] + " is not an int in [0, 2**32)";
  int pass_dir;
  if (w[2] == "hold") pass_dir = hearts::kHold;
  else if (w[2] == "left") pass_dir = hearts::kLeftDir;
  else if (w[2] == "across") pass_dir = hearts::kAcrossDir;
  else if (w[2] == "right") pass_dir = hearts::kRightDir;
  else return "error new: pass=" + w[2] + " is not one of hold, left, across, right";
  std::vector<std::vector<hearts::card>> hands(kPlayers);
  bool seen[52] = {false};
  for (int seat = 0; seat < kPlayers; ++seat) {
    std::string item;
    std::istringstream in(w[3 + seat]);
    while (std::getline(in, item, ',')) {
      int id;
      if (!ParseCard(item, &id))
        return "error new: '" + item + "' in hand " + std::to_string(seat) +
               " is not a card (rank of 23456789TJQKA, suit of CDHS)";
      if (seen[id]) return "error new: card " + item + " is dealt twice";
      seen[id] = true;
      hands[seat].push_back(ToXinxin(id));
    }
    if (hands[seat].size() != kHandSize)
      return "error new: hand " + std::to_string(seat) + " has " +
             std::to_string(hands[seat].size()) + " cards, not 13";
  }
  *deal = std::make_unique<Deal>(cfg, static_cast<uint32_t>(seed), pass_dir, hands);
  return "ok";
}

std::string DoPlay(const std::vector<std::string>& w, Deal* deal) {
  if (deal == nullptr) return "error play before new";
  if (w.size() != 3) return "error play takes: <seat> <card>";
  hearts::HeartsGameState* g = deal->state();
  if (g->Done()) return "error play: the deal is over";
  unsigned long seat;
  int id;
  if (!ParseUInt(w[1], kPlayers - 1, &seat)) return "error play: seat=" + w[1] + " is not in 0..3";
  if (!ParseCard(w[2], &id)) return "error play: '" + w[2] + "' is not a card";
  int next = g->getNextPlayerNum();
  if (static_cast<int>(seat) != next)
    return "error play: seat " + w[1] + " is not to move; seat " + std::to_string(next) + " is";
  std::vector<int> legal = deal->Legal();
  if (!std::binary_search(legal.begin(), legal.end(), id))
    return "error play: " + w[2] + " is not legal for seat " + w[1] + "; legal " + Cards(legal);
  hearts::Move* move = new hearts::CardMove(ToXinxin(id), next);
  g->ApplyMove(move);
  g->freeMove(move);
  return "ok";
}

std::string DoLegal(Deal* deal) {
  if (deal == nullptr) return "error legal before new";
  if (deal->state()->Done()) return "error legal: the deal is over";
  return "legal " + std::to_string(deal->state()->getNextPlayerNum()) + " " + Cards(deal->Legal());
}

std::string DoMove(Deal* deal) {
  if (deal == nullptr) return "error move before new";
  hearts::HeartsGameState* g = deal->state();
  if (g->Done()) return "error move: the deal is over";
  std::vector<int> legal = deal->Legal();
  auto* move = static_cast<hearts::CardMove*>(g->getNextPlayer()->Play());
  int id = FromXinxin(move->c);
  g->freeMove(move);
  return "move " + CardName(id) + " legal " + Cards(legal);
}

std::string DoPoints(Deal* deal) {
  if (deal == nullptr) return "error points before new";
  hearts::HeartsGameState* g = deal->state();
  if (!g->Done()) return "error points: the deal is not over";
  std::string out = "points";
  for (int p = 0; p < kPlayers; ++p) out += " " + std::to_string(static_cast<int>(g->score(p)));
  return out;
}

}  // namespace

int main() {
  // Keep the protocol on a private copy of stdout; send fd 1 (xinxin's
  // printf) to stderr.
  int proto = dup(1);
  if (proto < 0 || dup2(2, 1) < 0) return 2;
  g_out = fdopen(proto, "w");
  if (g_out == nullptr) return 2;
  Config cfg;
  std::unique_ptr<Deal> deal;
  Reply("xinxin-driver 1");
  std::string line;
  while (std::getline(std::cin, line)) {
    std::vector<std::string> w = Split(line);
    if (w.empty()) { Reply("error empty command"); continue; }
    const std::string& cmd = w[0];
    if (cmd == "quit") break;
    if (cmd == "config") Reply(DoConfig(w, &cfg));
    else if (cmd == "new") Reply(DoNew(w, cfg, &deal));
    else if (cmd == "play") Reply(DoPlay(w, deal.get()));
    else if (cmd == "legal" && w.size() == 1) Reply(DoLegal(deal.get()));
    else if (cmd == "move" && w.size() == 1) Reply(DoMove(deal.get()));
    else if (cmd == "points" && w.size() == 1) Reply(DoPoints(deal.get()));
    else Reply("error unknown command '" + cmd + "'; allowed: config, new, play, legal, move, points, quit");
  }
  return 0;
}
