# The seed's Narcotic program (shared/seeds/000_2140af09572abf64.txt), its two
# functions copied verbatim, driven by a harness that reads one deck per line
# (52 integers, seed array order) and prints: time did_loop
SECONDS_IN_MINUTE = 60
MINUTES_IN_HOUR = 60
PERCENT = 100
CARDS_PER_DEAL = 4
CARDS_IN_DECK = 52
NUM_SUITS = 4
# Given an array of four numbers, returns an array of arrays with all identical
# numbers shifted to the leftmost matching number.
# e.g. [4, 4, 3, 1] returns [[4, 4], [], [3], [1]], and
# [1, 4, 4, 4] returns [[1], [4, 4, 4], [], []].
# If all the values are the same, returns an array of four empty arrays,
# equivalent to removing the cards from the game.
def proper_piles(cards)
piles = Array.new(CARDS_PER_DEAL){[]}
# Return an array of four empty arrays if the cards all match.
return piles if cards.all?{|card| cards[0] == card}
# Enclose each card in the array in its own array
piles = cards.map{|card| [card]}
# Check every card for matches with subsequent cards, and move it in the
# event of a match
piles.each_index do |i|
(i..piles.size - 1).each do |j|
if piles[i][0] == piles[j][0]
moved_card = piles[j].delete_at(0)
# If we compare two empty arrays, moved_card will be nil,
# which is why we have the if clause below.
piles[i] << moved_card if !moved_card.nil?
end
end
end
piles
end
def narcotic_iterations(deck)
seconds_to_place_card = 1
seconds_to_gather_deck = 5
time = 0
did_loop = false
past_decks = []
# Outer loop executes until all the cards have been taken away
until deck.empty?
piles = Array.new(CARDS_PER_DEAL){Array.new}
# Inner loop goes through one deck
until deck.empty?
# Get the proper arrangement of the cards dealt from the deck
deal = proper_piles(Array.new(CARDS_PER_DEAL){deck.pop})
deal.each_index do |i|
# += is used rather than indexing and << because array + []
# has no effect, exactly what we want.
piles[i] += deal[i]
end
time += CARDS_PER_DEAL * seconds_to_place_card
end
# Finally, merge all the piles into a single deck.
# The deck is not reversed because it is face up through
# the whole game, and piles are gathered from right to left.
deck = piles.flatten
# Detect an infinite loop
if past_decks.include?(deck)
did_loop = true
break
end
past_decks << deck.clone
time += seconds_to_gather_deck
end
return time, did_loop
end
# --- harness (not from the seed) ---
STDIN.each_line do |line|
  deck = line.split.map(&:to_i)
  time, did_loop = narcotic_iterations(deck)
  puts "#{time} #{did_loop}"
end
