package meanfield_test

import (
	"encoding/json"
	"fmt"

	"herd/meanfield"
)

// A herd run stopped after 10 maps, its state kept as JSON and resumed,
// ends as the run never stopped does, bit for bit: the aperiodic herd at
// k = 5, λ = 0.9, T = 100, averaged over 16 maps after 16 in the herd
// regime (herd point's golden point-aperiodic.text is this point with the
// defaults 200 and 256).
func ExampleAttractorSettings_checkpoint() {
	r := meanfield.Refresh{Dispatchers: 5, Load: 0.9, Period: 100}
	s := meanfield.HerdSettings{Settle: 16, Average: 16}
	whole, err := meanfield.FindHerdAttractor(r, meanfield.BoardEmpty(), s)
	if err != nil {
		fmt.Println(err)
		return
	}

	var saved []byte
	polls := 0
	first := s
	first.Stop = func() bool { polls++; return polls == 10 } // Ctrl-C after map 10
	first.Checkpoint = func(stopping bool, state func() *meanfield.RunState) {
		if stopping {
			saved, _ = json.Marshal(state())
		}
	}
	_, err = meanfield.FindHerdAttractor(r, meanfield.BoardEmpty(), first)
	fmt.Println(err)

	var st meanfield.RunState
	if err := json.Unmarshal(saved, &st); err != nil {
		fmt.Println(err)
		return
	}
	second := s
	second.Resume = &st
	resumed, err := meanfield.FindHerdAttractor(r, nil, second)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("resumed after %d maps: %v in %d maps, response %.4f; the same bits as the whole run: %t\n",
		st.Maps, resumed.Status, resumed.Maps, resumed.Response, resumed.Response == whole.Response && resumed.BoardMeanSE == whole.BoardMeanSE)
	// Output:
	// meanfield: attractor: after 10 maps: meanfield: stopped
	// resumed after 10 maps: aperiodic in 36 maps, response 72.4274; the same bits as the whole run: true
}
