// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import "./Verifier.sol"; // generated from the circuit's verification key (reasonforge.certificate.solidity)

/// @title ReasonForge certificate registry: stores a certificate only after its Groth16 proof verifies.
/// @dev Public inputs are recomputed here from the stored fields, so no stored field can disagree
///      with what the proofs and the validators' signatures attest: the first segment's task input is
///      sha256(taskHash, verdictDigest, checkersDigest, domain, proofLevel, verdict, assurance) (mirrors
///      binding.bound_task_input), `packed` mirrors params.py PACK_LAYOUT, the segment links mirror
///      witness.segment_task_input, and the certificate id mirrors binding.certificate_id.
contract CertificateRegistry {
    /// Every field but `segments` and `registrant` is bound by the proofs (see publicInputs).
    struct Certificate {
        bytes32 taskHash;          // sha256 of {original_query, reasoning_chain, claimed_answer}
        bytes32 verdictDigest;     // chain.verdict_digest: level, domain, answer, per-step evidence and checkers
        bytes32 checkersDigest;    // binding.checkers_digest of the checker and translator Specs
        bytes32 verdictCommitment; // Poseidon commitment of the last segment (the accumulator)
        bytes32 validatorRoot;     // root of the quaternary Poseidon tree of the validator set
        uint8 domain;              // 0=mathematics, 1=code, 2=logic
        uint8 proofLevel;          // 0=formal, 1=standard, 2=quick (lower is stronger)
        uint8 verdict;             // 0=VERIFIED, 1=PARTIAL, 2=FAILED
        uint8 assurance;           // 0=proven, 1=corroborated, 2=arithmetic, 3=self_tested, 4=unproven, 5=refuted, 6=conditional
        uint16 totalSteps;
        uint16 verifiedSteps;
        uint8 validatorCount;
        uint8 validatorThreshold;
        uint64 timestamp;
        uint64 stakeThreshold;
        uint8 segments;            // number of linked proofs; set by the contract
        address registrant;        // set by the contract to msg.sender
    }

    /// One Groth16 proof over up to MAX_STEPS consecutive steps (chains longer than the circuit
    /// are a sequence of them, each committing to the one before; see segmentTaskInput).
    struct Segment {
        bytes32 commitment;
        uint8 totalSteps;
        uint8 verifiedSteps;
        uint256[2] a;
        uint256[2][2] b;
        uint256[2] c;
    }

    uint8 public constant CERTIFICATE_VERSION = 2;
    uint8 public constant LEVELS = 3;

    Groth16Verifier public immutable verifier;
    bytes32 public immutable verificationKeyHash; // sha256 of the verification key JSON the verifier was rendered from
    address public immutable owner;

    mapping(bytes32 => Certificate) public certificates;                 // certId => certificate
    mapping(bytes32 => bytes32[LEVELS]) internal certificateAtLevel;      // taskHash => proofLevel => certId
    mapping(bytes32 => bytes32[]) internal segmentCommitments;           // certId => every segment's commitment (when > 1)
    mapping(bytes32 => bool) public trustedRoots;                        // validator sets whose signatures count
    uint256 public totalCertificates;
    uint256 public totalVerified;

    event CertificateRegistered(
        bytes32 indexed certificateId,
        bytes32 indexed taskHash,
        uint8 proofLevel,
        uint8 verdict,
        uint16 verifiedSteps,
        uint16 totalSteps
    );
    event ValidatorRootSet(bytes32 indexed root, bool trusted);

    error CertificateExists(bytes32 certId);
    error CertificateIdMismatch(bytes32 expected);
    error TaskAlreadyCertified(bytes32 taskHash, uint8 proofLevel, bytes32 certId);
    error UntrustedValidatorRoot(bytes32 root);
    error InvalidCode();
    error InconsistentVerdict();
    error InconsistentSegments();
    error InvalidProof(uint256 segment);
    error NotOwner();

    constructor(address verifier_, bytes32 verificationKeyHash_, bytes32 initialRoot) {
        verifier = Groth16Verifier(verifier_);
        verificationKeyHash = verificationKeyHash_;
        owner = msg.sender;
        trustedRoots[initialRoot] = true;
        emit ValidatorRootSet(initialRoot, true);
    }

    /// @notice Trust or distrust a validator set root (governance of who may attest).
    function setValidatorRoot(bytes32 root, bool trusted) external {
        if (msg.sender != owner) revert NotOwner();
        trustedRoots[root] = trusted;
        emit ValidatorRootSet(root, trusted);
    }

    /// @notice What the first segment proves and the validators sign: the task with what was proven
    ///         about it (digest, checkers, domain, level, verdict, assurance), top 248 bits of sha256.
    function boundTaskInput(Certificate calldata cert) public pure returns (uint256) {
        return uint256(
            sha256(
                abi.encodePacked(
                    cert.taskHash, cert.verdictDigest, cert.checkersDigest,
                    cert.domain, cert.proofLevel, cert.verdict, cert.assurance
                )
            )
        ) >> 8;
    }

    /// @notice The task input segment `index` proves: boundTaskInput for the first segment, then a link
    ///         sha256(taskHash, previous segment's commitment, index), top 248 bits.
    function segmentTaskInput(bytes32 taskHash, bytes32 previous, uint256 index, uint256 bound)
        public
        pure
        returns (uint256)
    {
        if (index == 0) return bound;
        return uint256(sha256(abi.encodePacked(taskHash, previous, index))) >> 8;
    }

    /// @notice The four public inputs one segment's proof must satisfy for this certificate.
    function publicInputs(Certificate calldata cert, Segment calldata seg, uint256 taskInput)
        public
        pure
        returns (uint256[4] memory input)
    {
        input[0] = taskInput;
        input[1] = uint256(seg.commitment);
        input[2] = uint256(cert.validatorRoot);
        input[3] = uint256(seg.verifiedSteps) | (uint256(seg.totalSteps) << 8)
            | (uint256(cert.validatorCount) << 16) | (uint256(cert.validatorThreshold) << 24)
            | (uint256(cert.timestamp) << 32) | (uint256(cert.stakeThreshold) << 96);
    }

    /// @notice The content id of a certificate with `segmentCount` segments: sha256 of the version, this
    ///         registry's verification key hash and every bound field (mirrors binding.certificate_id).
    function certificateId(Certificate calldata cert, uint256 segmentCount) public view returns (bytes32) {
        bytes memory head = abi.encodePacked(
            CERTIFICATE_VERSION, verificationKeyHash, cert.taskHash, cert.verdictDigest, cert.checkersDigest,
            cert.verdictCommitment, cert.validatorRoot
        );
        return sha256(
            abi.encodePacked(
                head, cert.domain, cert.proofLevel, cert.verdict, cert.assurance, cert.totalSteps,
                cert.verifiedSteps, cert.validatorCount, cert.validatorThreshold, cert.timestamp,
                cert.stakeThreshold, uint8(segmentCount)
            )
        );
    }

    /// @notice The only verdict the counts and the assurance allow (binding.expected_overall); reverts when
    ///         the assurance cannot go with the counts. All verified: proven or corroborated is VERIFIED,
    ///         arithmetic-only, self-tested or conditional is PARTIAL; otherwise unproven or refuted, FAILED when
    ///         none verified.
    function expectedVerdict(uint8 assurance, uint16 verified, uint16 total) public pure returns (uint8) {
        if (verified == total) {
            if (assurance <= 1) return 0;
            if (assurance <= 3 || assurance == 6) return 1;
            revert InconsistentVerdict();
        }
        if (assurance != 4 && assurance != 5) revert InconsistentVerdict();
        return verified == 0 ? 2 : 1;
    }

    /// @notice Register a certificate; reverts unless certId is its content id, no certificate of the task
    ///         exists at its level, and every segment's proof verifies for exactly these fields with the
    ///         segments chaining from the bound task input to verdictCommitment.
    function registerCertificate(bytes32 certId, Certificate calldata cert, Segment[] calldata segments) external {
        uint256 n = segments.length;
        if (n == 0 || n > type(uint8).max || segments[n - 1].commitment != cert.verdictCommitment) {
            revert InconsistentSegments();
        }
        bytes32 expectedId = certificateId(cert, n);
        if (certId != expectedId) revert CertificateIdMismatch(expectedId);
        if (certificates[certId].timestamp != 0) revert CertificateExists(certId);
        if (cert.domain > 2 || cert.proofLevel >= LEVELS || cert.verdict > 2 || cert.assurance > 5) revert InvalidCode();
        bytes32 existing = certificateAtLevel[cert.taskHash][cert.proofLevel];
        if (existing != bytes32(0)) revert TaskAlreadyCertified(cert.taskHash, cert.proofLevel, existing);
        if (!trustedRoots[cert.validatorRoot]) revert UntrustedValidatorRoot(cert.validatorRoot);
        if (cert.verdict != expectedVerdict(cert.assurance, cert.verifiedSteps, cert.totalSteps) || cert.timestamp == 0)
        {
            revert InconsistentVerdict();
        }

        uint256 bound = boundTaskInput(cert);
        uint256 total;
        uint256 verified;
        bytes32 previous;
        for (uint256 i = 0; i < n; i++) {
            Segment calldata seg = segments[i];
            uint256[4] memory input = publicInputs(cert, seg, segmentTaskInput(cert.taskHash, previous, i, bound));
            if (!verifier.verifyProof(seg.a, seg.b, seg.c, input)) revert InvalidProof(i);
            total += seg.totalSteps;
            verified += seg.verifiedSteps;
            previous = seg.commitment;
        }
        if (total != cert.totalSteps || verified != cert.verifiedSteps) revert InconsistentSegments();

        Certificate memory stored = cert;
        stored.segments = uint8(n);
        stored.registrant = msg.sender;
        certificates[certId] = stored;
        certificateAtLevel[cert.taskHash][cert.proofLevel] = certId;
        if (n > 1) {
            for (uint256 i = 0; i < n; i++) {
                segmentCommitments[certId].push(segments[i].commitment);
            }
        }
        totalCertificates++;
        if (cert.verdict == 0) totalVerified++;
        emit CertificateRegistered(
            certId, cert.taskHash, cert.proofLevel, cert.verdict, cert.verifiedSteps, cert.totalSteps
        );
    }

    /// @notice Every segment's commitment, in order (a single-proof certificate's is verdictCommitment).
    function segmentCommitmentsOf(bytes32 certId) external view returns (bytes32[] memory) {
        if (certificates[certId].segments == 1) {
            bytes32[] memory single = new bytes32[](1);
            single[0] = certificates[certId].verdictCommitment;
            return single;
        }
        return segmentCommitments[certId];
    }

    /// @notice The task's certificate at `proofLevel` (0 = formal, 1 = standard, 2 = quick); zero if none.
    function certificateOf(bytes32 taskHash, uint8 proofLevel) external view returns (bytes32) {
        return proofLevel < LEVELS ? certificateAtLevel[taskHash][proofLevel] : bytes32(0);
    }

    /// @notice The task's certificate at the highest (strongest) level registered; zero if none.
    function certificateOfTask(bytes32 taskHash) public view returns (bytes32) {
        for (uint8 level = 0; level < LEVELS; level++) {
            bytes32 certId = certificateAtLevel[taskHash][level];
            if (certId != bytes32(0)) return certId;
        }
        return bytes32(0);
    }

    /// @notice Every certificate of the task, strongest level first (at most one per level).
    function certificatesOfTask(bytes32 taskHash) external view returns (bytes32[] memory ids) {
        uint256 count;
        for (uint8 level = 0; level < LEVELS; level++) {
            if (certificateAtLevel[taskHash][level] != bytes32(0)) count++;
        }
        ids = new bytes32[](count);
        count = 0;
        for (uint8 level = 0; level < LEVELS; level++) {
            bytes32 certId = certificateAtLevel[taskHash][level];
            if (certId != bytes32(0)) ids[count++] = certId;
        }
    }

    /// @notice True if the task's certificate at the highest level registered is VERIFIED.
    function isVerified(bytes32 taskHash) external view returns (bool) {
        bytes32 certId = certificateOfTask(taskHash);
        return certId != bytes32(0) && certificates[certId].verdict == 0;
    }

    /// @notice True if the task has a VERIFIED certificate at `minLevel` or stronger (proof level code at most
    ///         minLevel: isVerifiedAt(t, 0) asks for a formal one, isVerifiedAt(t, 2) accepts any level).
    function isVerifiedAt(bytes32 taskHash, uint8 minLevel) external view returns (bool) {
        for (uint8 level = 0; level < LEVELS && level <= minLevel; level++) {
            bytes32 certId = certificateAtLevel[taskHash][level];
            if (certId != bytes32(0) && certificates[certId].verdict == 0) return true;
        }
        return false;
    }

    /// @notice True if the certificate was registered (its proofs verified on registration).
    function verifyCertificate(bytes32 certId) external view returns (bool) {
        return certificates[certId].timestamp != 0;
    }
}
